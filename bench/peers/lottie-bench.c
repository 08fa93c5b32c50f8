// lottie-bench: `lamina-bench lottie-grid`'s grid (N Lottie animations playing at once in a
// W×H canvas, Sources/lamina-bench/LottieGridBench.swift) drawn by a CPU Lottie renderer every
// frame, unpaced, into one W×H buffer in memory (not shown: no window, as Lamina's headless
// daemon shows none).
//
//   lottie-bench --engine rlottie|thorvg --plan PLAN [--size WxH] [--seconds S] [--warmup S]
//                [--thorvg-lib PATH] [--threads N] [--out FILE.ppm]
//
// PLAN is `lamina-bench lottie-grid --plan`'s output: one line per animation, "FILE SPEED PHASE
// X Y W H" (the file fitted into its cell). Each animation shows, at time t since the start, the
// frame at progress frac(PHASE + t · SPEED · fps / frames) of its range, as Lamina's
// `LottiePlayer` plays it after seek(progress: PHASE) and setSpeed(SPEED).
//
// rlottie (Debian's librlottie 0.1, C API): one `Lottie_Animation` per cell, rendered each frame
// with `lottie_animation_render` (synchronous, on this thread; whole frame numbers, as rlottie
// takes them) into the cell's own W×H ARGB32 premultiplied buffer, then composited source-over
// into the canvas.
// thorvg (ThorVG 1.0's C API from the PyPI wheel thorvg-python, libthorvg-1.so, loaded with
// dlopen: no headers are installed): one software canvas on the canvas buffer holding N Lottie
// pictures, each sized to its cell and translated there; each frame sets every animation's frame
// (fractional frames) then update / draw / sync. `--threads` (default: the online CPUs) is
// ThorVG's task scheduler's thread count (tvg_engine_init).
//
// Prints one JSON line: fps, CPU ms per frame (this process, every thread: getrusage), frame
// ms p50/p99, after `--warmup` (1 s) of unmeasured frames.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <rlottie_capi.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

static void fail(const char *message) {
    fprintf(stderr, "lottie-bench: %s\n", message);
    exit(1);
}

typedef struct {
    char file[1024];
    double speed, phase;
    int x, y, w, h;
    double frames, fps;        // the range's length in frames, frames per second
    Lottie_Animation *rl;      // rlottie
    uint32_t *buffer;          // rlottie: the cell's buffer
    void *anim, *picture;      // ThorVG
} Cell;

// ThorVG 1.0's C API (thorvg_capi.h), the functions used here.
static struct {
    int (*engine_init)(unsigned threads);
    void *(*swcanvas_create)(uint8_t op);
    int (*swcanvas_set_target)(void *canvas, uint32_t *buffer, uint32_t stride, uint32_t w, uint32_t h, uint8_t cs);
    int (*canvas_add)(void *canvas, void *paint);
    int (*canvas_update)(void *canvas);
    int (*canvas_draw)(void *canvas, _Bool clear);
    int (*canvas_sync)(void *canvas);
    void *(*animation_new)(void);
    void *(*animation_get_picture)(void *anim);
    int (*animation_set_frame)(void *anim, float no);
    int (*animation_get_total_frame)(void *anim, float *no);
    int (*animation_get_duration)(void *anim, float *seconds);
    int (*picture_load)(void *picture, const char *path);
    int (*picture_set_size)(void *picture, float w, float h);
    int (*paint_translate)(void *paint, float x, float y);
} tvg;

static void load_thorvg(const char *path) {
    void *lib = dlopen(path, RTLD_NOW);
    if (!lib) fail(dlerror());
#define SYM(field, name) do { *(void **)&tvg.field = dlsym(lib, name); if (!tvg.field) fail("missing " name); } while (0)
    SYM(engine_init, "tvg_engine_init");
    SYM(swcanvas_create, "tvg_swcanvas_create");
    SYM(swcanvas_set_target, "tvg_swcanvas_set_target");
    SYM(canvas_add, "tvg_canvas_add");
    SYM(canvas_update, "tvg_canvas_update");
    SYM(canvas_draw, "tvg_canvas_draw");
    SYM(canvas_sync, "tvg_canvas_sync");
    SYM(animation_new, "tvg_animation_new");
    SYM(animation_get_picture, "tvg_animation_get_picture");
    SYM(animation_set_frame, "tvg_animation_set_frame");
    SYM(animation_get_total_frame, "tvg_animation_get_total_frame");
    SYM(animation_get_duration, "tvg_animation_get_duration");
    SYM(picture_load, "tvg_picture_load");
    SYM(picture_set_size, "tvg_picture_set_size");
    SYM(paint_translate, "tvg_paint_translate");
#undef SYM
}

// The frame (from the range's start) cell c shows at time t.
static double frame_at(const Cell *c, double t) {
    double p = c->phase + t * c->speed * c->fps / c->frames;
    p -= floor(p);
    return p * c->frames;
}

// Source-over of a premultiplied ARGB32 cell buffer into the canvas.
static void composite(uint32_t *canvas, int stride, const Cell *c, int width, int height) {
    for (int y = 0; y < c->h && c->y + y < height; y++) {
        const uint32_t *src = c->buffer + (size_t)y * c->w;
        uint32_t *dst = canvas + (size_t)(c->y + y) * stride + c->x;
        for (int x = 0; x < c->w && c->x + x < width; x++) {
            uint32_t s = src[x], a = s >> 24;
            if (a == 0) continue;
            if (a == 255) { dst[x] = s; continue; }
            uint32_t d = dst[x], out = 0;
            for (int shift = 0; shift < 32; shift += 8) {
                uint32_t sc = (s >> shift) & 255, dc = (d >> shift) & 255;
                out |= ((sc + (dc * (255 - a) + 127) / 255) & 255) << shift;
            }
            dst[x] = out;
        }
    }
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *engine = NULL, *plan = NULL, *thorvg_lib = NULL, *out = NULL;
    int width = 1280, height = 720;
    double seconds = 5, warmup = 1;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc) fail("every option needs a value");
        const char *v = argv[++i];
        if (!strcmp(a, "--engine")) engine = v;
        else if (!strcmp(a, "--plan")) plan = v;
        else if (!strcmp(a, "--size")) { if (sscanf(v, "%dx%d", &width, &height) != 2) fail("--size WxH"); }
        else if (!strcmp(a, "--seconds")) seconds = atof(v);
        else if (!strcmp(a, "--warmup")) warmup = atof(v);
        else if (!strcmp(a, "--thorvg-lib")) thorvg_lib = v;
        else if (!strcmp(a, "--threads")) threads = atol(v);
        else if (!strcmp(a, "--out")) out = v;
        else fail("usage: lottie-bench --engine rlottie|thorvg --plan PLAN [--size WxH] [--seconds S] [--warmup S] "
                  "[--thorvg-lib PATH] [--threads N] [--out FILE.ppm]");
    }
    if (!engine || !plan) fail("--engine and --plan are needed");
    int thorvg = !strcmp(engine, "thorvg");
    if (!thorvg && strcmp(engine, "rlottie")) fail("--engine rlottie|thorvg");

    FILE *f = fopen(plan, "r");
    if (!f) fail("cannot read the plan");
    Cell *cells = NULL;
    int n = 0;
    Cell c;
    memset(&c, 0, sizeof c);
    while (fscanf(f, "%1023s %lf %lf %d %d %d %d", c.file, &c.speed, &c.phase, &c.x, &c.y, &c.w, &c.h) == 7) {
        cells = realloc(cells, sizeof(Cell) * (n + 1));
        cells[n++] = c;
    }
    fclose(f);
    if (n == 0) fail("the plan has no cells");

    uint32_t *canvas = calloc((size_t)width * height, 4);
    void *tcanvas = NULL;
    if (thorvg) {
        if (!thorvg_lib) fail("--thorvg-lib PATH (libthorvg-1.so) is needed");
        load_thorvg(thorvg_lib);
        if (tvg.engine_init(threads > 0 ? (unsigned)threads : 0) != 0) fail("tvg_engine_init failed");
        tcanvas = tvg.swcanvas_create(0);
        tvg.swcanvas_set_target(tcanvas, canvas, width, width, height, 1 /* ARGB8888, premultiplied */);
    }
    for (int k = 0; k < n; k++) {
        Cell *cell = &cells[k];
        if (thorvg) {
            cell->anim = tvg.animation_new();
            cell->picture = tvg.animation_get_picture(cell->anim);
            if (tvg.picture_load(cell->picture, cell->file) != 0) { fprintf(stderr, "%s: ", cell->file); fail("ThorVG cannot load it"); }
            float total = 0, duration = 0;
            tvg.animation_get_total_frame(cell->anim, &total);
            tvg.animation_get_duration(cell->anim, &duration);
            cell->frames = total;
            cell->fps = duration > 0 ? total / duration : 30;
            tvg.picture_set_size(cell->picture, cell->w, cell->h);
            tvg.paint_translate(cell->picture, cell->x, cell->y);
            tvg.canvas_add(tcanvas, cell->picture);
        } else {
            cell->rl = lottie_animation_from_file(cell->file);
            if (!cell->rl) { fprintf(stderr, "%s: ", cell->file); fail("rlottie cannot load it"); }
            cell->frames = lottie_animation_get_totalframe(cell->rl);
            cell->fps = lottie_animation_get_framerate(cell->rl);
            cell->buffer = calloc((size_t)cell->w * cell->h, 4);
        }
    }

    double start = now(), measure = 0, cpu0 = 0;
    int frames = 0, measuring = 0, capacity = 1 << 16;
    double *times = malloc(sizeof(double) * capacity);
    while (1) {
        double t0 = now(), t = t0 - start;
        if (!measuring && t >= warmup) { measuring = 1; measure = t0; cpu0 = cpu(); frames = 0; }
        if (measuring && t0 - measure >= seconds && frames >= 5) break;
        if (thorvg) {
            for (int k = 0; k < n; k++) tvg.animation_set_frame(cells[k].anim, (float)frame_at(&cells[k], t));
            tvg.canvas_update(tcanvas);
            tvg.canvas_draw(tcanvas, 1);
            tvg.canvas_sync(tcanvas);
        } else {
            memset(canvas, 0, (size_t)width * height * 4);
            for (int k = 0; k < n; k++) {
                Cell *cell = &cells[k];
                size_t frame = (size_t)frame_at(cell, t);
                memset(cell->buffer, 0, (size_t)cell->w * cell->h * 4);
                lottie_animation_render(cell->rl, frame, cell->buffer, cell->w, cell->h, (size_t)cell->w * 4);
                composite(canvas, width, cell, width, height);
            }
        }
        if (measuring && frames < capacity) times[frames] = now() - t0;
        if (measuring) frames++;
    }
    double elapsed = now() - measure, used = cpu() - cpu0;
    int counted = frames < capacity ? frames : capacity;
    qsort(times, counted, sizeof(double), compare_doubles);
    if (out) {
        FILE *o = fopen(out, "wb");
        fprintf(o, "P6\n%d %d\n255\n", width, height);
        for (size_t i = 0; i < (size_t)width * height; i++) {
            uint32_t p = canvas[i];
            unsigned char rgb[3] = {(p >> 16) & 255, (p >> 8) & 255, p & 255};
            fwrite(rgb, 1, 3, o);
        }
        fclose(o);
    }
    printf("{\"bench\": \"lottie-grid\", \"engine\": \"%s\", \"animations\": %d, \"size\": \"%dx%d\", "
           "\"threads\": %ld, \"seconds\": %.3f, \"frames\": %d, \"fps\": %.1f, \"cpu_ms_per_frame\": %.3f, "
           "\"frame_ms_p50\": %.3f, \"frame_ms_p99\": %.3f}\n",
           engine, n, width, height, thorvg ? threads : 1L, elapsed, frames, frames / elapsed, used / frames * 1000,
           times[counted / 2] * 1000, times[(int)(counted * 0.99)] * 1000);
    return 0;
}
