#ifndef CQUIRE_IMAGING_H
#define CQUIRE_IMAGING_H

#include <stddef.h>
#include <stdint.h>

/// Encodes width×height RGBA8 pixels as PNG. Returns 0 on success; free *out with free().
int cquire_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, uint8_t **out, size_t *out_size);

/// Decodes a PNG into RGBA8 pixels. Returns 0 on success; free *pixels with free().
int cquire_png_decode(const uint8_t *data, size_t size, uint8_t **pixels, uint32_t *width, uint32_t *height);

/// Decodes a JPEG into RGBA8 pixels. Returns 0 on success; free *pixels with free(). On failure,
/// libjpeg's message is copied into error.
int cquire_jpeg_decode(const uint8_t *data, size_t size, uint8_t **pixels, uint32_t *width, uint32_t *height,
                       char *error, size_t error_size);

/// Encodes width×height RGBA8 pixels as a baseline JPEG (alpha is dropped). Returns 0 on success;
/// free *out with free().
int cquire_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int quality, uint8_t **out,
                       size_t *out_size);

#endif
