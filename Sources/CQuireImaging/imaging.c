#include "CQuireImaging.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>

int cquire_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, uint8_t **out, size_t *out_size) {
  png_image image;
  memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = width;
  image.height = height;
  image.format = PNG_FORMAT_RGBA;
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&image, NULL, &size, 0, rgba, 0, NULL)) return -1;
  uint8_t *buffer = malloc(size);
  if (!buffer) return -1;
  if (!png_image_write_to_memory(&image, buffer, &size, 0, rgba, 0, NULL)) {
    free(buffer);
    return -1;
  }
  *out = buffer;
  *out_size = size;
  return 0;
}

int cquire_png_decode(const uint8_t *data, size_t size, uint8_t **pixels, uint32_t *width, uint32_t *height) {
  png_image image;
  memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, data, size)) return -1;
  image.format = PNG_FORMAT_RGBA;
  if (image.width == 0 || image.height == 0 || image.width > 30000 || image.height > 30000) {
    png_image_free(&image);
    return -1;
  }
  uint8_t *buffer = malloc(PNG_IMAGE_SIZE(image));
  if (!buffer) {
    png_image_free(&image);
    return -1;
  }
  if (!png_image_finish_read(&image, NULL, buffer, 0, NULL)) {
    free(buffer);
    return -1;
  }
  *pixels = buffer;
  *width = image.width;
  *height = image.height;
  return 0;
}

struct quire_jpeg_error {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
  char *message;
  size_t message_size;
};

static void quire_jpeg_fail(j_common_ptr info) {
  struct quire_jpeg_error *error = (struct quire_jpeg_error *)info->err;
  if (error->message && error->message_size) {
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    snprintf(error->message, error->message_size, "%s", text);
  }
  longjmp(error->jump, 1);
}

int cquire_jpeg_decode(const uint8_t *data, size_t size, uint8_t **pixels, uint32_t *width, uint32_t *height,
                       char *message, size_t message_size) {
  struct jpeg_decompress_struct info;
  struct quire_jpeg_error error;
  uint8_t *volatile buffer = NULL;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = quire_jpeg_fail;
  error.message = message;
  error.message_size = message_size;
  if (setjmp(error.jump)) {
    jpeg_destroy_decompress(&info);
    free(buffer);
    return -1;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, data, (unsigned long)size);
  jpeg_read_header(&info, TRUE);
  info.out_color_space = JCS_EXT_RGBA;
  jpeg_start_decompress(&info);
  if (info.output_width > 30000 || info.output_height > 30000) {
    jpeg_destroy_decompress(&info);
    return -1;
  }
  size_t stride = (size_t)info.output_width * 4;
  buffer = malloc(stride * info.output_height);
  if (!buffer) {
    jpeg_destroy_decompress(&info);
    return -1;
  }
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = buffer + stride * info.output_scanline;
    jpeg_read_scanlines(&info, &row, 1);
  }
  *width = info.output_width;
  *height = info.output_height;
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  *pixels = buffer;
  return 0;
}

int cquire_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int quality, uint8_t **out,
                       size_t *out_size) {
  struct jpeg_compress_struct info;
  struct quire_jpeg_error error;
  unsigned char *volatile buffer = NULL;
  unsigned long size = 0;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = quire_jpeg_fail;
  error.message = NULL;
  error.message_size = 0;
  if (setjmp(error.jump)) {
    jpeg_destroy_compress(&info);
    free(buffer);
    return -1;
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, (unsigned char **)&buffer, &size);
  info.image_width = width;
  info.image_height = height;
  info.input_components = 4;
  info.in_color_space = JCS_EXT_RGBA;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = (JSAMPROW)(rgba + (size_t)info.next_scanline * width * 4);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  *out = buffer;
  *out_size = size;
  return 0;
}
