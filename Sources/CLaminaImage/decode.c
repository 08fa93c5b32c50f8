// JPEG, WebP and PNG decoding for LaminaImage (see include/CLaminaImage.h).
#include "CLaminaImage.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>
#include <png.h>
#include <webp/decode.h>

static lamina_image_status fail(lamina_image_result *result, lamina_image_status status, const char *message) {
    snprintf(result->message, sizeof result->message, "%s", message);
    return status;
}

// MARK: - JPEG

/// libjpeg's error manager with a jump back into the call that set it up. Errors and warnings
/// (libjpeg warns about corrupt or missing data and carries on with made-up pixels) both end
/// the decode: a compositor shows no guessed image.
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    lamina_image_status status;
} jpeg_error;

static void jpeg_fail(j_common_ptr info, lamina_image_status status) {
    jpeg_error *error = (jpeg_error *)info->err;
    error->status = status;
    longjmp(error->jump, 1);
}

static void jpeg_error_exit(j_common_ptr info) {
    int code = info->err->msg_code;
    jpeg_fail(info, code == JERR_CONVERSION_NOTIMPL || code == JERR_NOT_COMPILED || code == JERR_BAD_J_COLORSPACE
                        ? LAMINA_IMAGE_UNSUPPORTED : LAMINA_IMAGE_CORRUPT);
}

static void jpeg_emit_message(j_common_ptr info, int level) {
    if (level >= 0) return;  // trace messages
    jpeg_fail(info, info->err->msg_code == JWRN_JPEG_EOF ? LAMINA_IMAGE_TRUNCATED : LAMINA_IMAGE_CORRUPT);
}

static void jpeg_output_message(j_common_ptr info) { (void)info; }  // nothing goes to stderr

/// Reads the header and, when `out` is not NULL, decodes the whole image into it as RGBA.
static lamina_image_status jpeg_run(const uint8_t *data, size_t size, uint8_t *out, size_t out_size,
                                    lamina_image_result *result) {
    // Both live in this frame and are only read through their addresses after a longjmp.
    struct jpeg_decompress_struct info;
    jpeg_error error;
    memset(&info, 0, sizeof info);
    info.err = jpeg_std_error(&error.base);
    error.base.error_exit = jpeg_error_exit;
    error.base.emit_message = jpeg_emit_message;
    error.base.output_message = jpeg_output_message;
    error.status = LAMINA_IMAGE_OK;
    if (setjmp(error.jump)) {
        char text[JMSG_LENGTH_MAX];
        error.base.format_message((j_common_ptr)&info, text);
        jpeg_destroy_decompress(&info);
        return fail(result, error.status, text);
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    result->width = (int)info.image_width;
    result->height = (int)info.image_height;
    if (out == NULL) {
        jpeg_destroy_decompress(&info);
        return LAMINA_IMAGE_OK;
    }
    info.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&info);
    size_t stride = (size_t)info.output_width * 4;
    if (info.output_width != info.image_width || info.output_height != info.image_height
        || stride * info.output_height > out_size) {
        jpeg_destroy_decompress(&info);
        return fail(result, LAMINA_IMAGE_CORRUPT, "output size differs from the header's");
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = out + stride * info.output_scanline;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    return LAMINA_IMAGE_OK;
}

lamina_image_status lamina_jpeg_info(const uint8_t *data, size_t size, lamina_image_result *result) {
    return jpeg_run(data, size, NULL, 0, result);
}

lamina_image_status lamina_jpeg_decode(const uint8_t *data, size_t size, uint8_t *out, size_t out_size,
                                       lamina_image_result *result) {
    return jpeg_run(data, size, out, out_size, result);
}

// MARK: - WebP

static lamina_image_status webp_status(VP8StatusCode code, lamina_image_result *result) {
    switch (code) {
    case VP8_STATUS_OK: return LAMINA_IMAGE_OK;
    case VP8_STATUS_NOT_ENOUGH_DATA: return fail(result, LAMINA_IMAGE_TRUNCATED, "not enough data");
    case VP8_STATUS_UNSUPPORTED_FEATURE: return fail(result, LAMINA_IMAGE_UNSUPPORTED, "unsupported feature");
    case VP8_STATUS_OUT_OF_MEMORY: return fail(result, LAMINA_IMAGE_CORRUPT, "out of memory");
    case VP8_STATUS_INVALID_PARAM: return fail(result, LAMINA_IMAGE_CORRUPT, "invalid parameter");
    default: return fail(result, LAMINA_IMAGE_CORRUPT, "bitstream error");
    }
}

lamina_image_status lamina_webp_info(const uint8_t *data, size_t size, lamina_image_result *result) {
    WebPBitstreamFeatures features;
    lamina_image_status status = webp_status(WebPGetFeatures(data, size, &features), result);
    if (status != LAMINA_IMAGE_OK) return status;
    if (features.has_animation) return fail(result, LAMINA_IMAGE_UNSUPPORTED, "animated WebP");
    result->width = features.width;
    result->height = features.height;
    return LAMINA_IMAGE_OK;
}

lamina_image_status lamina_webp_decode(const uint8_t *data, size_t size, uint8_t *out, size_t out_size,
                                       lamina_image_result *result) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return fail(result, LAMINA_IMAGE_UNSUPPORTED, "libwebp version mismatch");
    lamina_image_status status = webp_status(WebPGetFeatures(data, size, &config.input), result);
    if (status != LAMINA_IMAGE_OK) return status;
    if ((size_t)config.input.width * (size_t)config.input.height * 4 > out_size) {
        return fail(result, LAMINA_IMAGE_CORRUPT, "output size differs from the header's");
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = out;
    config.output.u.RGBA.stride = config.input.width * 4;
    config.output.u.RGBA.size = out_size;
    status = webp_status(WebPDecode(data, size, &config), result);
    WebPFreeDecBuffer(&config.output);
    return status;
}

// MARK: - PNG

/// libpng's simplified API (it catches libpng's own longjmps inside libpng).
static lamina_image_status png_failure(png_image *image, lamina_image_result *result) {
    // libpng's memory reader says "read beyond end of data" when the data ends early.
    lamina_image_status status = strstr(image->message, "end of data") || strstr(image->message, "Not enough")
                                     ? LAMINA_IMAGE_TRUNCATED : LAMINA_IMAGE_CORRUPT;
    fail(result, status, image->message);
    png_image_free(image);
    return status;
}

lamina_image_status lamina_png_info(const uint8_t *data, size_t size, lamina_image_result *result) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) return png_failure(&image, result);
    result->width = (int)image.width;
    result->height = (int)image.height;
    png_image_free(&image);
    return LAMINA_IMAGE_OK;
}

lamina_image_status lamina_png_decode(const uint8_t *data, size_t size, uint8_t *out, size_t out_size,
                                      lamina_image_result *result) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) return png_failure(&image, result);
    image.format = PNG_FORMAT_RGBA;
    if (PNG_IMAGE_SIZE(image) > out_size) {
        png_image_free(&image);
        return fail(result, LAMINA_IMAGE_CORRUPT, "output size differs from the header's");
    }
    if (!png_image_finish_read(&image, NULL, out, 0, NULL)) return png_failure(&image, result);
    return LAMINA_IMAGE_OK;
}
