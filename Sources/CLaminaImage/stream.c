// A PNG file read row by row (see include/CLaminaImage.h).
#include "CLaminaImage.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <png.h>

struct lamina_png_stream {
    FILE *file;
    /// A descriptor read with pread from `offset` (the file's own offset untouched, so that
    /// other readers of the same descriptor do not disturb this one); -1 when `file` is read.
    int fd;
    off_t offset;
    png_structp png;
    png_infop info;
    int width;
    int height;
    int row;
    /// Where libpng's error handler jumps, and its message.
    jmp_buf jump;
    char message[200];
};

static void stream_error(png_structp png, png_const_charp message) {
    lamina_png_stream *s = png_get_error_ptr(png);
    snprintf(s->message, sizeof s->message, "%s", message);
    longjmp(s->jump, 1);
}

static void stream_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

static void set(lamina_image_result *result, const char *message) {
    snprintf(result->message, sizeof result->message, "%s", message);
}

static lamina_image_status status_of(const char *message) {
    return strstr(message, "EOF") || strstr(message, "end of") || strstr(message, "Read Error")
               ? LAMINA_IMAGE_TRUNCATED : LAMINA_IMAGE_CORRUPT;
}

void lamina_png_stream_close(lamina_png_stream *s) {
    if (!s) return;
    if (s->png) png_destroy_read_struct(&s->png, s->info ? &s->info : NULL, NULL);
    if (s->file) fclose(s->file);
    free(s);
}

static void read_descriptor(png_structp png, png_bytep out, size_t length) {
    lamina_png_stream *s = png_get_io_ptr(png);
    size_t done = 0;
    while (done < length) {
        ssize_t n = pread(s->fd, out + done, length - done, s->offset);
        if (n <= 0) png_error(png, n == 0 ? "Read Error: unexpected end of file" : "Read Error");
        done += (size_t)n;
        s->offset += n;
    }
}

static lamina_png_stream *stream_open(lamina_png_stream *s, lamina_image_result *result);

lamina_png_stream *lamina_png_stream_open(const char *path, lamina_image_result *result) {
    lamina_png_stream *s = calloc(1, sizeof *s);
    if (!s) { set(result, "out of memory"); return NULL; }
    s->fd = -1;
    s->file = fopen(path, "rb");
    if (!s->file) {
        snprintf(result->message, sizeof result->message, "cannot open %s", path);
        free(s);
        return NULL;
    }
    return stream_open(s, result);
}

lamina_png_stream *lamina_png_stream_open_fd(int fd, lamina_image_result *result) {
    lamina_png_stream *s = calloc(1, sizeof *s);
    if (!s) { set(result, "out of memory"); return NULL; }
    s->fd = fd;
    return stream_open(s, result);
}

static lamina_png_stream *stream_open(lamina_png_stream *s, lamina_image_result *result) {
    unsigned char signature[8];
    int got = 0;
    if (s->fd >= 0) {
        got = pread(s->fd, signature, 8, 0) == 8;
        s->offset = 8;
    } else {
        got = fread(signature, 1, 8, s->file) == 8;
    }
    if (!got || png_sig_cmp(signature, 0, 8) != 0) {
        set(result, "not a PNG file (region decoding reads PNG only)");
        lamina_png_stream_close(s);
        return NULL;
    }
    s->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, s, stream_error, stream_warning);
    if (s->png) s->info = png_create_info_struct(s->png);
    if (!s->png || !s->info) { set(result, "out of memory"); lamina_png_stream_close(s); return NULL; }
    if (setjmp(s->jump)) {
        set(result, s->message);
        lamina_png_stream_close(s);
        return NULL;
    }
    // Large images are the point: no limit on the size but the caller's.
    png_set_user_limits(s->png, 0x7fffffff, 0x7fffffff);
    if (s->fd >= 0) png_set_read_fn(s->png, s, read_descriptor);
    else png_init_io(s->png, s->file);
    png_set_sig_bytes(s->png, 8);
    png_read_info(s->png, s->info);
    png_uint_32 width, height;
    int depth, color, interlace;
    png_get_IHDR(s->png, s->info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    if (interlace != PNG_INTERLACE_NONE) {
        set(result, "interlaced PNG cannot be decoded region by region");
        lamina_png_stream_close(s);
        return NULL;
    }
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(s->png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(s->png);
    if (png_get_valid(s->png, s->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(s->png);
    if (depth == 16) png_set_strip_16(s->png);
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(s->png);
    if (!(color & PNG_COLOR_MASK_ALPHA)) png_set_filler(s->png, 0xff, PNG_FILLER_AFTER);
    png_read_update_info(s->png, s->info);
    if (png_get_rowbytes(s->png, s->info) != (size_t)width * 4) {
        set(result, "PNG pixel layout not convertible to RGBA8");
        lamina_png_stream_close(s);
        return NULL;
    }
    s->width = (int)width;
    s->height = (int)height;
    result->width = s->width;
    result->height = s->height;
    return s;
}

lamina_image_status lamina_png_stream_read(lamina_png_stream *s, uint8_t *out, int rows, lamina_image_result *result) {
    if (rows < 0 || s->row + rows > s->height) {
        set(result, "read past the image's last row");
        return LAMINA_IMAGE_CORRUPT;
    }
    if (setjmp(s->jump)) {
        set(result, s->message);
        return status_of(s->message);
    }
    for (int i = 0; i < rows; i++) {
        png_read_row(s->png, out + (size_t)i * (size_t)s->width * 4, NULL);
        s->row += 1;
    }
    return LAMINA_IMAGE_OK;
}

int lamina_png_stream_row(const lamina_png_stream *s) { return s->row; }
