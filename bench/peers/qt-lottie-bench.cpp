// qt-lottie-bench: `lamina-bench lottie-grid`'s grid (Sources/lamina-bench/LottieGridBench.swift)
// in Qt Quick 6 with Qt Lottie (Debian qml6-module-qt-labs-lottieqt): a QQuickView of W×H holding
// one `LottieAnimation` item per line of the plan, in a window (QT_QPA_PLATFORM=xcb under Xvfb,
// Qt Quick's default scene graph: OpenGL on llvmpipe; or QT_QUICK_BACKEND=software).
//
//   qt-lottie-bench --plan PLAN [--size WxH] [--seconds S] [--warmup S] [--stagger MS] [--dump-qml FILE] [--out FILE.png]
//
// PLAN is `lamina-bench lottie-grid --plan`'s output ("FILE SPEED PHASE X Y W H" a line). Each
// item has the file's own size (Qt Lottie draws a file at that size whatever the item's), is
// scaled into the cell's fitted rectangle and clipped to it, loops forever, plays at frameRate round(fr · SPEED) (Qt
// Lottie's frameRate is a whole number) from frame startFrame + PHASE · (endFrame − startFrame)
// (`gotoAndPlay` once loaded). Qt Lottie renders each animation's frames with QPainter in its
// own worker thread (BatchRenderer) into images the items then show; every item asks for a new
// frame on its own timer at its frame rate, so the window redraws when any item has a new frame:
// the window's frame rate is bounded by the animations' rates, not unpaced.
//
// Prints one JSON line: the window's frames per second (QQuickWindow::frameSwapped), this
// process's CPU ms per window frame and CPU seconds per second (every thread: getrusage), after
// `--warmup` (2 s, after the last file's load began) of unmeasured frames.
#include <QGuiApplication>
#include <QQuickView>
#include <QQuickItem>
#include <QQmlEngine>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>
#include <QUrl>
#include <QImage>
#include <QTemporaryDir>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <sys/resource.h>

static double now() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu() {
    rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

[[noreturn]] static void fail(const std::string &m) {
    fprintf(stderr, "qt-lottie-bench: %s\n", m.c_str());
    exit(1);
}

int main(int argc, char **argv) {
    std::string plan, dumpQml, out;
    int width = 1280, height = 720;
    double seconds = 5, warmup = 2, stagger = 0;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (i + 1 >= argc) fail(a + " needs a value");
        std::string v = argv[++i];
        if (a == "--plan") plan = v;
        else if (a == "--size") { if (sscanf(v.c_str(), "%dx%d", &width, &height) != 2) fail("--size WxH"); }
        else if (a == "--seconds") seconds = std::stod(v);
        else if (a == "--warmup") warmup = std::stod(v);
        else if (a == "--dump-qml") dumpQml = v;
        else if (a == "--stagger") stagger = std::stod(v);
        else if (a == "--out") out = v;
        else fail("usage: qt-lottie-bench --plan PLAN [--size WxH] [--seconds S] [--warmup S] [--stagger MS] [--dump-qml FILE] [--out FILE.png]");
    }
    if (plan.empty()) fail("--plan is needed");
    QGuiApplication app(argc, argv);

    QFile pf(QString::fromStdString(plan));
    if (!pf.open(QIODevice::ReadOnly)) fail("cannot read the plan");
    QString qml = QString("import QtQuick\nimport Qt.labs.lottieqt\nItem {\n    width: %1; height: %2\n").arg(width).arg(height);
    int count = 0;
    for (const QByteArray &line : pf.readAll().split('\n')) {
        QList<QByteArray> f = line.simplified().split(' ');
        if (f.size() != 7) continue;
        QString file = QString::fromUtf8(f[0]);
        QFile lf(file);
        if (!lf.open(QIODevice::ReadOnly)) fail("cannot read " + file.toStdString());
        QJsonObject doc = QJsonDocument::fromJson(lf.readAll()).object();
        double fr = doc.value("fr").toDouble(30), fw = doc.value("w").toDouble(1), fh = doc.value("h").toDouble(1);
        double speed = f[1].toDouble(), phase = f[2].toDouble();
        // Qt Lottie draws a file at its own size whatever the item's: the item has the file's size,
        // scaled (about its top-left corner) into the cell and clipped to it.
        qml += QString("    LottieAnimation { x: %1; y: %2; width: %3; height: %4; transformOrigin: Item.TopLeft; "
                       "transform: Scale { xScale: %5; yScale: %6 } clip: true\n"
                       "        property url pending: \"%7\"; frameRate: %8; loops: LottieAnimation.Infinite; autoPlay: false\n"
                       "        onStatusChanged: if (status === LottieAnimation.Ready) "
                       "gotoAndPlay(startFrame + Math.floor(%9 * (endFrame - startFrame))) }\n")
                   .arg(QString(f[3])).arg(QString(f[4])).arg(fw).arg(fh)
                   .arg(f[5].toDouble() / fw).arg(f[6].toDouble() / fh)
                   .arg(QUrl::fromLocalFile(QFileInfo(file).absoluteFilePath()).toString())
                   .arg(std::max(1L, std::lround(fr * speed))).arg(phase);
        count++;
    }
    qml += "}\n";
    if (count == 0) fail("the plan has no cells");
    QTemporaryDir dir;
    QString qmlPath = dumpQml.empty() ? dir.filePath("grid.qml") : QString::fromStdString(dumpQml);
    QFile qf(qmlPath);
    if (!qf.open(QIODevice::WriteOnly)) fail("cannot write the QML");
    qf.write(qml.toUtf8());
    qf.close();

    QQuickView view;
    view.setResizeMode(QQuickView::SizeRootObjectToView);
    view.resize(width, height);
    view.setSource(QUrl::fromLocalFile(qmlPath));
    if (view.status() != QQuickView::Ready) fail("the QML did not load (qml6-module-qt-labs-lottieqt installed?)");
    view.show();

    // The sources are set `--stagger` ms apart (default 0: all at once). Qt Lottie 6.4 crashes
    // now and then on files with gradient fills (BMGFill's constructor reading a QJsonValueRef of
    // the document its renderer thread reads too: std::bad_alloc or SIGSEGV), staggered or not:
    // run-lottie-peers gives it the grid without those cells.
    QList<QQuickItem *> items = view.rootObject()->childItems();
    for (int k = 0; k < int(items.size()); k++) {
        QQuickItem *item = items[k];
        QTimer::singleShot(int(k * stagger), [item]() { item->setProperty("source", item->property("pending")); });
    }
    warmup += items.size() * stagger / 1000;
    int frames = 0;
    double measureStart = 0, cpu0 = 0;
    bool measuring = false;
    QObject::connect(&view, &QQuickWindow::frameSwapped, [&]() { if (measuring) frames++; });
    QTimer::singleShot(int(warmup * 1000), [&]() { measuring = true; measureStart = now(); cpu0 = cpu(); });
    QTimer::singleShot(int((warmup + seconds) * 1000), [&]() {
        double elapsed = now() - measureStart, used = cpu() - cpu0;
        if (!out.empty()) view.grabWindow().save(QString::fromStdString(out));
        printf("{\"bench\": \"lottie-grid\", \"engine\": \"qt-lottie\", \"animations\": %d, \"size\": \"%dx%d\", "
               "\"seconds\": %.3f, \"frames\": %d, \"fps\": %.1f, \"cpu_ms_per_frame\": %.3f, \"cpu_per_second\": %.3f}\n",
               count, width, height, elapsed, frames, frames / elapsed, frames ? used / frames * 1000 : -1.0,
               used / elapsed);
        fflush(stdout);
        app.quit();
    });
    return app.exec();
}
