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

#endif
