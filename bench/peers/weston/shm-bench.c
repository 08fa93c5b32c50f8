/* shm-bench: the client-surface cases of `lamina-bench surfaces` (issue 24) as a Wayland client of
 * Weston, through wl_shm, paced by frame callbacks and timed by wp_presentation feedback.
 *
 *   shm-bench --case full|many|damage [--seconds S] [--warmup S] [--compositor-pid PID]
 *
 * full:   one 1920x1080 surface redrawn and committed every frame (a video player's stream: a
 *         test pattern whose bar moves each frame), the whole buffer damaged.
 * many:   16 surfaces of 480x270 (subsurfaces of one 1920x1080 surface, desynchronized, in a 4x4
 *         grid), each redrawn and committed at 60 Hz (every 1/60 s by the clock, when its last
 *         frame callback has come).
 * damage: one 3840x2160 buffer at buffer scale 2 (shown at 1920x1080, as lamina-bench surfaces
 *         shows it on its 1920x1080 canvas); each frame redraws and damages one 64x64 square
 *         (moving), the rest of the buffer unchanged (the compositor should copy only the damage).
 * Each surface keeps three buffers from one shared-memory pool (memfd, sealed against shrinking)
 * and draws into one the compositor has released. Every commit asks for a frame callback and a
 * presentation feedback; the latency of a commit is the feedback's presentation time minus the
 * time of the commit on the feedback's clock (wp_presentation.clock_id).
 * Prints one JSON line: presented frames per second (per surface for many), latency p50/p99,
 * discarded commits, and with --compositor-pid the compositor's CPU time (user + system, all its
 * threads: llvmpipe's included) per presented frame.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"
#include "presentation-time-client-protocol.h"

static struct wl_compositor *compositor;
static struct wl_subcompositor *subcompositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wmBase;
static struct wp_presentation *presentation;
static clockid_t presentationClock = (clockid_t)-1;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(const char *message) {
    fprintf(stderr, "shm-bench: %s\n", message);
    exit(1);
}

/* ---- statistics ---- */
static double *latencies;
static size_t latencyCount, latencyCapacity;
static long presented, discarded;
static int measuring;

static void addLatency(double ms) {
    if (!measuring) return;
    if (latencyCount == latencyCapacity) {
        latencyCapacity = latencyCapacity ? latencyCapacity * 2 : 4096;
        latencies = realloc(latencies, latencyCapacity * sizeof(double));
    }
    latencies[latencyCount++] = ms;
}

static int compareDoubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double percentile(double p) {
    if (!latencyCount) return 0;
    qsort(latencies, latencyCount, sizeof(double), compareDoubles);
    return latencies[(size_t)lround(p * (latencyCount - 1))];
}

static double processCPUSeconds(int pid) {
    char path[64], buffer[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buffer, 1, sizeof buffer - 1, f);
    fclose(f);
    buffer[n] = 0;
    char *p = strrchr(buffer, ')');  /* the command name may hold spaces */
    if (!p) return 0;
    unsigned long utime = 0, stime = 0;
    /* after ") ": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2) return 0;
    return (utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* ---- buffers and surfaces ---- */
struct Buffer {
    struct wl_buffer *buffer;
    uint32_t *pixels;
    int busy;
};

struct Surface {
    struct wl_surface *surface;
    struct wl_subsurface *subsurface;
    int width, height, x, y;
    struct Buffer buffers[3];
    struct wl_callback *frame;  /* pending frame callback */
    double nextDue;             /* many: the next 1/60 s tick */
    long frameNumber;
    int index;
};

static void bufferRelease(void *data, struct wl_buffer *buffer) {
    ((struct Buffer *)data)->busy = 0;
}
static const struct wl_buffer_listener bufferListener = {bufferRelease};

static void makeBuffers(struct Surface *s) {
    int stride = s->width * 4;
    size_t size = (size_t)stride * s->height;
    int fd = memfd_create("shm-bench", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, (off_t)(size * 3)) < 0) fail("memfd");
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
    uint8_t *base = mmap(NULL, size * 3, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) fail("mmap");
    struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, (int32_t)(size * 3));
    for (int k = 0; k < 3; k++) {
        struct Buffer *b = &s->buffers[k];
        b->pixels = (uint32_t *)(base + size * k);
        b->buffer = wl_shm_pool_create_buffer(pool, (int32_t)(size * k), s->width, s->height, stride,
                                              WL_SHM_FORMAT_ARGB8888);
        wl_buffer_add_listener(b->buffer, &bufferListener, b);
        /* opaque background, as the first frame shows it */
        for (size_t i = 0; i < (size_t)s->width * s->height; i++) b->pixels[i] = 0xff202830;
    }
    wl_shm_pool_destroy(pool);
    close(fd);
}

static struct Buffer *freeBuffer(struct Surface *s) {
    for (int k = 0; k < 3; k++)
        if (!s->buffers[k].busy) return &s->buffers[k];
    return NULL;
}

/* ---- presentation feedback ---- */
struct Feedback { double committed; };

static void feedbackSyncOutput(void *data, struct wp_presentation_feedback *f, struct wl_output *output) {}
static void feedbackPresented(void *data, struct wp_presentation_feedback *f, uint32_t secHi, uint32_t secLo,
                              uint32_t nsec, uint32_t refresh, uint32_t seqHi, uint32_t seqLo, uint32_t flags) {
    struct Feedback *fb = data;
    double t = ((double)(((uint64_t)secHi << 32) | secLo)) + nsec / 1e9;
    if (measuring) {
        presented++;
        addLatency((t - fb->committed) * 1e3);
    }
    free(fb);
    wp_presentation_feedback_destroy(f);
}
static void feedbackDiscarded(void *data, struct wp_presentation_feedback *f) {
    if (measuring) discarded++;
    free(data);
    wp_presentation_feedback_destroy(f);
}
static const struct wp_presentation_feedback_listener feedbackListener = {feedbackSyncOutput, feedbackPresented,
                                                                          feedbackDiscarded};

static const char *testCase = "full";

/* The test pattern: a full frame (full, many) or one 64x64 square (damage). Returns the damage. */
static void draw(struct Surface *s, struct Buffer *b, int *dx, int *dy, int *dw, int *dh) {
    long n = s->frameNumber;
    if (!strcmp(testCase, "damage")) {
        int cols = s->width / 64, rows = s->height / 64;
        int cell = (int)(n % (cols * rows));
        int x0 = (cell % cols) * 64, y0 = (cell / cols) * 64;
        uint32_t color = 0xff000000u | (uint32_t)((n * 37) & 0xff) << 16 | (uint32_t)((n * 91) & 0xff) << 8 | 0x80;
        for (int y = y0; y < y0 + 64; y++) {
            uint32_t *row = b->pixels + (size_t)y * s->width;
            for (int x = x0; x < x0 + 64; x++) row[x] = color;
        }
        *dx = x0; *dy = y0; *dw = 64; *dh = 64;
        return;
    }
    /* Eight vertical colour bars, a moving white bar across them (SMPTE-like). */
    static const uint32_t bars[8] = {0xffc0c0c0, 0xffc0c000, 0xff00c0c0, 0xff00c000,
                                     0xffc000c0, 0xffc00000, 0xff0000c0, 0xff101010};
    int bar = (int)((n * 8) % s->width);
    for (int y = 0; y < s->height; y++) {
        uint32_t *row = b->pixels + (size_t)y * s->width;
        for (int k = 0; k < 8; k++) {
            int x0 = k * s->width / 8, x1 = (k + 1) * s->width / 8;
            uint32_t c = bars[(k + s->index) % 8];
            for (int x = x0; x < x1; x++) row[x] = c;
        }
        int x1 = bar + 16 < s->width ? bar + 16 : s->width;
        for (int x = bar; x < x1; x++) row[x] = 0xffffffff;
    }
    *dx = 0; *dy = 0; *dw = s->width; *dh = s->height;
}

static void frameDone(void *data, struct wl_callback *callback, uint32_t time);
static const struct wl_callback_listener frameListener = {frameDone};

static void commitFrame(struct Surface *s) {
    struct Buffer *b = freeBuffer(s);
    if (!b) return;  /* all three still read by the compositor: try at the next callback */
    int dx, dy, dw, dh;
    draw(s, b, &dx, &dy, &dw, &dh);
    s->frameNumber++;
    wl_surface_attach(s->surface, b->buffer, 0, 0);
    b->busy = 1;
    wl_surface_damage_buffer(s->surface, dx, dy, dw, dh);
    s->frame = wl_surface_frame(s->surface);
    wl_callback_add_listener(s->frame, &frameListener, s);
    struct Feedback *fb = malloc(sizeof *fb);
    struct wp_presentation_feedback *f = wp_presentation_feedback(presentation, s->surface);
    wp_presentation_feedback_add_listener(f, &feedbackListener, fb);
    struct timespec ts;
    clock_gettime(presentationClock, &ts);  /* the feedback's clock (Weston: CLOCK_MONOTONIC_RAW) */
    fb->committed = ts.tv_sec + ts.tv_nsec / 1e9;
    wl_surface_commit(s->surface);
}

static void frameDone(void *data, struct wl_callback *callback, uint32_t time) {
    struct Surface *s = data;
    wl_callback_destroy(callback);
    s->frame = NULL;
    if (strcmp(testCase, "many")) commitFrame(s);  /* many: the 60 Hz clock commits */
}

/* ---- registry and shell ---- */
static void presentationClockId(void *data, struct wp_presentation *p, uint32_t clk) { presentationClock = (clockid_t)clk; }
static const struct wp_presentation_listener presentationListener = {presentationClockId};

static void wmPing(void *data, struct xdg_wm_base *base, uint32_t serial) { xdg_wm_base_pong(base, serial); }
static const struct xdg_wm_base_listener wmListener = {wmPing};

static int configured;
static void surfaceConfigure(void *data, struct xdg_surface *surface, uint32_t serial) {
    xdg_surface_ack_configure(surface, serial);
    configured = 1;
}
static const struct xdg_surface_listener xdgSurfaceListener = {surfaceConfigure};
static void toplevelConfigure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states) {}
static void toplevelClose(void *data, struct xdg_toplevel *t) { exit(0); }
static const struct xdg_toplevel_listener toplevelListener = {toplevelConfigure, toplevelClose};

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    if (!strcmp(interface, wl_compositor_interface.name))
        compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    else if (!strcmp(interface, wl_subcompositor_interface.name))
        subcompositor = wl_registry_bind(registry, name, &wl_subcompositor_interface, 1);
    else if (!strcmp(interface, wl_shm_interface.name))
        shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    else if (!strcmp(interface, xdg_wm_base_interface.name)) {
        wmBase = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
        xdg_wm_base_add_listener(wmBase, &wmListener, NULL);
    } else if (!strcmp(interface, wp_presentation_interface.name)) {
        presentation = wl_registry_bind(registry, name, &wp_presentation_interface, 1);
        wp_presentation_add_listener(presentation, &presentationListener, NULL);
    }
}
static void globalRemove(void *data, struct wl_registry *registry, uint32_t name) {}
static const struct wl_registry_listener registryListener = {global, globalRemove};

int main(int argc, char **argv) {
    double seconds = 5, warmup = 1;
    int compositorPid = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) fail("every option takes a value");
        if (!strcmp(argv[i], "--case")) testCase = argv[++i];
        else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--warmup")) warmup = atof(argv[++i]);
        else if (!strcmp(argv[i], "--compositor-pid")) compositorPid = atoi(argv[++i]);
        else fail("usage: shm-bench --case full|many|damage [--seconds S] [--warmup S] [--compositor-pid PID]");
    }
    int many = !strcmp(testCase, "many"), damage = !strcmp(testCase, "damage");
    if (!many && !damage && strcmp(testCase, "full")) fail("--case full|many|damage");

    struct wl_display *display = wl_display_connect(NULL);
    if (!display) fail("no Wayland display (WAYLAND_DISPLAY)");
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registryListener, NULL);
    wl_display_roundtrip(display);
    wl_display_roundtrip(display);
    if (!compositor || !shm || !wmBase || !presentation || (many && !subcompositor))
        fail("the compositor lacks wl_compositor, wl_shm, xdg_wm_base, wp_presentation or wl_subcompositor");
    if (presentationClock == (clockid_t)-1) fail("no presentation clock");

    int surfaceCount = many ? 17 : 1;  /* many: the parent and 16 subsurfaces */
    struct Surface *surfaces = calloc(surfaceCount, sizeof *surfaces);
    struct Surface *top = &surfaces[0];
    top->width = damage ? 3840 : 1920;
    top->height = damage ? 2160 : 1080;
    top->surface = wl_compositor_create_surface(compositor);
    struct xdg_surface *xdgSurface = xdg_wm_base_get_xdg_surface(wmBase, top->surface);
    xdg_surface_add_listener(xdgSurface, &xdgSurfaceListener, NULL);
    struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdgSurface);
    xdg_toplevel_add_listener(toplevel, &toplevelListener, NULL);
    xdg_toplevel_set_title(toplevel, "shm-bench");
    xdg_toplevel_set_fullscreen(toplevel, NULL);  /* at the output's origin, over the shell's panel */
    wl_surface_commit(top->surface);
    while (!configured) if (wl_display_dispatch(display) < 0) fail("display lost");
    makeBuffers(top);
    if (damage) wl_surface_set_buffer_scale(top->surface, 2);
    for (int k = 1; k < surfaceCount; k++) {
        struct Surface *s = &surfaces[k];
        s->index = k;
        s->width = 480; s->height = 270;
        s->x = ((k - 1) % 4) * 480; s->y = ((k - 1) / 4) * 270;
        s->surface = wl_compositor_create_surface(compositor);
        s->subsurface = wl_subcompositor_get_subsurface(subcompositor, s->surface, top->surface);
        wl_subsurface_set_position(s->subsurface, s->x, s->y);
        wl_subsurface_set_desync(s->subsurface);
        makeBuffers(s);
    }
    /* The first frame of every surface; many's parent is committed once (its subsurfaces' positions
     * apply with it) and stays still. */
    for (int k = surfaceCount - 1; k >= 0; k--) commitFrame(&surfaces[k]);
    wl_display_flush(display);

    double start = now(), measureStart = 0, cpu0 = 0;
    for (;;) {
        double t = now();
        if (!measuring && t - start >= warmup) {
            measuring = 1;
            measureStart = t;
            if (compositorPid) cpu0 = processCPUSeconds(compositorPid);
        }
        if (measuring && t - measureStart >= seconds) break;
        if (many)
            for (int k = 1; k < surfaceCount; k++) {
                struct Surface *s = &surfaces[k];
                if (!s->frame && t >= s->nextDue) {
                    commitFrame(s);
                    s->nextDue = (s->nextDue == 0 ? t : s->nextDue) + 1.0 / 60;
                    if (s->nextDue < t) s->nextDue = t + 1.0 / 60;
                }
            }
        wl_display_flush(display);
        /* Wait for events, or (many) until the next 60 Hz tick. */
        struct pollfd pfd = {wl_display_get_fd(display), POLLIN, 0};
        int timeout = 100;
        if (many) {
            double next = 1e18;
            for (int k = 1; k < surfaceCount; k++)
                if (!surfaces[k].frame && surfaces[k].nextDue < next) next = surfaces[k].nextDue;
            if (next < 1e17) timeout = (int)fmax(0, ceil((next - now()) * 1e3));
        }
        while (wl_display_prepare_read(display) != 0) wl_display_dispatch_pending(display);
        if (poll(&pfd, 1, timeout) > 0) wl_display_read_events(display);
        else wl_display_cancel_read(display);
        wl_display_dispatch_pending(display);
    }
    double elapsed = now() - measureStart;
    double cpu = compositorPid ? processCPUSeconds(compositorPid) - cpu0 : 0;
    double fps = presented / elapsed;
    int counted = many ? 16 : 1;
    printf("{\"system\": \"weston\", \"case\": \"%s\", \"surfaces\": %d, \"size\": \"%dx%d\", \"seconds\": %.3f, "
           "\"presented\": %ld, \"discarded\": %ld, \"presented_per_s\": %.1f, \"presented_per_s_per_surface\": %.1f, "
           "\"latency_ms\": {\"p50\": %.3f, \"p99\": %.3f}",
           testCase, counted, many ? 480 : top->width, many ? 270 : top->height, elapsed, presented, discarded, fps,
           fps / counted, percentile(0.5), percentile(0.99));
    if (compositorPid)
        printf(", \"compositor_cpu_ms_per_s\": %.1f, \"compositor_cpu_ms_per_presented\": %.3f", cpu / elapsed * 1e3,
               presented ? cpu / presented * 1e3 : 0);
    printf("}\n");
    return 0;
}
