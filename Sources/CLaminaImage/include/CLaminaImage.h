// C side of LaminaImage: JPEG (libjpeg-turbo), WebP (libwebp) and PNG (libpng's simplified
// API) decoding, each in two steps — read the header (size), then decode into memory the
// caller allocated after checking that size. libjpeg reports errors by longjmp: the setjmp
// and every longjmp stay inside this C file, so no jump crosses a Swift frame.
#ifndef LAMINA_IMAGE_H
#define LAMINA_IMAGE_H

#include <stddef.h>
#include <stdint.h>

/// What a call found: LAMINA_IMAGE_OK, or the problem with `message` saying more.
typedef enum {
    LAMINA_IMAGE_OK = 0,
    /// The data ends before the image does.
    LAMINA_IMAGE_TRUNCATED = 1,
    /// The data is not a valid image of its format.
    LAMINA_IMAGE_CORRUPT = 2,
    /// A valid image this decoder does not read (animation, a colour space it cannot convert).
    LAMINA_IMAGE_UNSUPPORTED = 3,
} lamina_image_status;

typedef struct {
    int width;
    int height;
    char message[200];
} lamina_image_result;

/// JPEG header: width and height. Returns the status.
lamina_image_status lamina_jpeg_info(const uint8_t *data, size_t size, lamina_image_result *result);
/// Decodes a JPEG into `out` (`width × height × 4` bytes, RGBA, alpha 255), which must hold the
/// size `lamina_jpeg_info` reported.
lamina_image_status lamina_jpeg_decode(const uint8_t *data, size_t size, uint8_t *out, size_t out_size,
                                       lamina_image_result *result);

lamina_image_status lamina_webp_info(const uint8_t *data, size_t size, lamina_image_result *result);
/// Straight (not premultiplied) RGBA.
lamina_image_status lamina_webp_decode(const uint8_t *data, size_t size, uint8_t *out, size_t out_size,
                                       lamina_image_result *result);

lamina_image_status lamina_png_info(const uint8_t *data, size_t size, lamina_image_result *result);
/// Straight RGBA, sRGB-encoded (libpng converts other gammas).
lamina_image_status lamina_png_decode(const uint8_t *data, size_t size, uint8_t *out, size_t out_size,
                                      lamina_image_result *result);


// A PNG file read row by row (libpng's sequential API, stream.c) so that an image larger than
// memory allows is decoded a band at a time (LaminaImage's TileStore). libpng reports errors
// by longjmp: every setjmp and longjmp stays inside stream.c.
typedef struct lamina_png_stream lamina_png_stream;

/// Opens the PNG file at `path` and reads its header: NULL with `result` saying why when it
/// cannot (not a PNG, interlaced — an interlaced PNG has no rows before its last pass).
/// `result->width` and `result->height` are the image's size.
lamina_png_stream *lamina_png_stream_open(const char *path, lamina_image_result *result);
/// The same over an open descriptor, read with pread from offset 0 (its file offset is left
/// alone); the descriptor stays the caller's (closing the stream does not close it).
lamina_png_stream *lamina_png_stream_open_fd(int fd, lamina_image_result *result);
/// Reads the next `rows` rows as straight RGBA8 (sRGB-encoded as stored; palette, grey,
/// 16-bit and tRNS converted) into `out` (`rows × width × 4` bytes).
lamina_image_status lamina_png_stream_read(lamina_png_stream *stream, uint8_t *out, int rows,
                                           lamina_image_result *result);
/// The index of the next row `lamina_png_stream_read` returns.
int lamina_png_stream_row(const lamina_png_stream *stream);
void lamina_png_stream_close(lamina_png_stream *stream);

#endif
