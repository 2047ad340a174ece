/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_yaml.h - YAML syntax errors, and libcyaml's errors turned into farm file messages. */
#ifndef FARMFILE_YAML_H
#define FARMFILE_YAML_H

#include <stdarg.h>
#include <stddef.h>

#include <cyaml/cyaml.h>

/* What libcyaml logged about a failed load: its message and the backtrace,
 * innermost frame first. */
#define FF_LOG_FRAMES 16

struct ff_log {
    char msg[512];
    unsigned n_frames;
    struct ff_frame {
        enum { FF_IN_FIELD, FF_IN_ENTRY, FF_IN_MAPPING } kind;
        char name[64];           /* FF_IN_FIELD: the key */
        unsigned entry;          /* FF_IN_ENTRY: entries so far, the current one included */
    } frame[FF_LOG_FRAMES];
};

/* A cyaml_config_t log_fn that records error messages in the struct ff_log
 * given as log_ctx. */
void ff_log_fn(cyaml_log_t level, void *ctx, const char *fmt, va_list args);

/* Check that yaml is one well-formed YAML document of at most FF_FILE_MAX
 * bytes whose lists and mappings nest at most FF_DEPTH_MAX deep, before
 * libcyaml sees it; 0, or -EINVAL (-EFBIG: too big) with a message naming
 * the line and column. */
int ff_yaml_syntax(const char *yaml, size_t len, const char *where, char *err, size_t errlen);

/* Turn what libcyaml logged while loading with schema top into one line in
 * err: the key path, the bad value, what is allowed. Returns -EINVAL
 * (-ENOMEM for CYAML_ERR_OOM). */
int ff_cyaml_error(const struct ff_log *log, cyaml_err_t e, const cyaml_schema_value_t *top,
                   const char *where, char *err, size_t errlen);

#endif /* FARMFILE_YAML_H */
