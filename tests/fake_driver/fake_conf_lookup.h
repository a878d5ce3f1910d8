/* The fake drivers' configuration text (key=value lines) looked up: shared by the Linux fakes
 * (fake_conf.h, which finds fake_driver.conf with dladdr) and the Windows fake nvcuda.dll
 * (tests/windows/fake_nvcuda.c, nvcuda.conf found with GetModuleFileName). Test code only. */
#ifndef DLREADY_FAKE_CONF_LOOKUP_H
#define DLREADY_FAKE_CONF_LOOKUP_H
#include <stdlib.h>
#include <string.h>

/* Value of `key` in `text` (copied into buf, a '\r' before the line end dropped) or NULL. */
static const char* fake_conf_lookup(const char* text, const char* key, char* buf, size_t len) {
  size_t klen = strlen(key);
  const char* p = text;
  while (*p) {
    const char* end = strchr(p, '\n');
    size_t line = end ? (size_t)(end - p) : strlen(p);
    if (line > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
      size_t v = line - klen - 1;
      if (v && p[klen + v] == '\r') --v;
      if (v >= len) v = len - 1;
      memcpy(buf, p + klen + 1, v);
      buf[v] = 0;
      return buf;
    }
    p += line + (end ? 1 : 0);
  }
  return NULL;
}

#endif
