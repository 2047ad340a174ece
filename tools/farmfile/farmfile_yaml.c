/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_yaml.c - YAML syntax errors, and libcyaml's errors turned into farm file messages. */
#include "farmfile_yaml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "farmfile_value.h"

/* A libyaml parse error at the parser's mark, into err. */
static int syntax_error(const yaml_parser_t *p, const char *where, char *err, size_t errlen)
{
    return ff_fail(err, errlen, where, "YAML syntax error at line %zu, column %zu: %s%s%s%s",
                   p->problem_mark.line + 1, p->problem_mark.column + 1,
                   p->problem ? p->problem : "unknown error", p->context ? " (" : "",
                   p->context ? p->context : "", p->context ? ")" : "");
}

/*
 * One pass of libyaml's event parser before libcyaml sees the file: the
 * syntax, one document, and the nesting depth. libyaml's scanner costs
 * O(depth) per token, so a hostile file of nested "[[[..." (1 MiB: minutes)
 * is refused at depth FF_DEPTH_MAX, after a few thousand tokens.
 */
int ff_yaml_syntax(const char *yaml, size_t len, const char *where, char *err, size_t errlen)
{
    yaml_parser_t p;
    yaml_event_t ev;
    int docs = 0, depth = 0, rc = 0, done = 0;

    if (len > FF_FILE_MAX)
        return ff_fail(err, errlen, where, "%zu bytes is too big (at most %d)", len,
                       FF_FILE_MAX), -EFBIG;
    if (!yaml_parser_initialize(&p))
        return ff_fail(err, errlen, where, "out of memory"), -ENOMEM;
    yaml_parser_set_input_string(&p, (const unsigned char *)yaml, len);
    while (!done && rc == 0) {
        if (!yaml_parser_parse(&p, &ev)) {
            rc = syntax_error(&p, where, err, errlen);
            break;
        }
        if (ev.type == YAML_DOCUMENT_START_EVENT && ++docs == 2)
            rc = ff_fail(err, errlen, where, "a second YAML document starts at line %zu (a farm "
                         "file is one document)", ev.start_mark.line + 1);
        if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
            depth++;
        else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
            depth--;
        /* A NUL (a quoted "\0" or "\x00") would cut the value short
         * where C reads it: "node\x001" became "node". */
        if (ev.type == YAML_SCALAR_EVENT &&
            strnlen((const char *)ev.data.scalar.value, ev.data.scalar.length) !=
                ev.data.scalar.length)
            rc = ff_fail(err, errlen, where, "the value at line %zu, column %zu holds a NUL "
                         "character (\\0 or \\x00 in quotes): a name, path or endpoint cannot; "
                         "remove it", ev.start_mark.line + 1, ev.start_mark.column + 1);
        if (depth > FF_DEPTH_MAX)
            rc = ff_fail(err, errlen, where, "lists and mappings nested deeper than %d levels "
                         "at line %zu, column %zu (a farm file needs 4)", FF_DEPTH_MAX,
                         ev.start_mark.line + 1, ev.start_mark.column + 1);
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    if (rc == 0 && docs == 0)
        rc = ff_fail(err, errlen, where, "the file is empty (a farm file needs the keys farm, "
                     "readouts, sfcs and nodes)");
    yaml_parser_delete(&p);
    return rc;
}

void ff_log_fn(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
    struct ff_log *log = ctx;
    char line[512];
    const char *l = line;
    struct ff_frame *f;
    size_t n;

    if (level < CYAML_LOG_ERROR)
        return;
    vsnprintf(line, sizeof(line), fmt, args);
    n = strlen(line);
    while (n > 0 && line[n - 1] == '\n')
        line[--n] = '\0';
    if (!strncmp(l, "Load: ", 6))
        l += 6;
    if (strncmp(l, "  in ", 5) != 0) {
        if (log->msg[0] == '\0' && strcmp(l, "Backtrace:") != 0)
            snprintf(log->msg, sizeof(log->msg), "%s", l);
        return;
    }
    if (log->n_frames == FF_LOG_FRAMES)
        return;
    f = &log->frame[log->n_frames++];
    memset(f, 0, sizeof(*f));
    if (sscanf(l, "  in mapping field '%63[^']'", f->name) == 1)
        f->kind = FF_IN_FIELD;
    else if (sscanf(l, "  in sequence entry '%u'", &f->entry) == 1)
        f->kind = FF_IN_ENTRY;
    else
        f->kind = FF_IN_MAPPING;
}

/* The key path of frames [skip, n_frames) (outermost last), plus leaf when
 * given: "readouts[0].sfcs[1]". */
static const char *path_of(const struct ff_log *log, unsigned skip, const char *leaf, char *buf,
                           size_t len)
{
    size_t o = 0;

    buf[0] = '\0';
    for (unsigned i = log->n_frames; i-- > skip && o < len;) {
        const struct ff_frame *f = &log->frame[i];
        if (f->kind == FF_IN_FIELD)
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "." : "", f->name);
        else if (f->kind == FF_IN_ENTRY)
            o += (size_t)snprintf(buf + o, len - o, "[%u]", f->entry ? f->entry - 1 : 0);
    }
    if (leaf && o < len)
        snprintf(buf + o, len - o, "%s%s", o ? "." : "", leaf);
    return buf;
}

/* The schema value that frames [skip, n_frames) lead to from top, or NULL. */
static const cyaml_schema_value_t *schema_of(const struct ff_log *log, unsigned skip,
                                             const cyaml_schema_value_t *v)
{
    for (unsigned i = log->n_frames; v && i-- > skip;) {
        const struct ff_frame *f = &log->frame[i];
        const cyaml_schema_field_t *field;
        if (f->kind == FF_IN_ENTRY) {
            v = v->type == CYAML_SEQUENCE ? v->sequence.entry : NULL;
        } else if (f->kind == FF_IN_FIELD) {
            if (v->type != CYAML_MAPPING)
                return NULL;
            for (field = v->mapping.fields; field->key && strcmp(field->key, f->name); field++)
                ;
            v = field->key ? &field->value : NULL;
        }
    }
    return v;
}

/* "a, b, c": the keys of a mapping or the strings of an enum. */
static const char *allowed(const cyaml_schema_value_t *v, char *buf, size_t len)
{
    size_t o = 0;

    buf[0] = '\0';
    if (v && v->type == CYAML_MAPPING)
        for (const cyaml_schema_field_t *f = v->mapping.fields; f->key && o < len; f++)
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", f->key);
    if (v && v->type == CYAML_ENUM)
        for (uint32_t i = 0; i < v->enumeration.count && o < len; i++)
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "",
                                  v->enumeration.strings[i].str);
    return buf;
}

/* Frames to drop to reach the mapping that holds a key named in the
 * message: the innermost frame, when it is that mapping or one of its fields. */
static unsigned holder_skip(const struct ff_log *log)
{
    return log->n_frames > 0 && log->frame[0].kind != FF_IN_ENTRY ? 1 : 0;
}

/* "Expecting STRING, got event: SEQUENCE_START" and the like. */
static int wrong_shape(const struct ff_log *log, const cyaml_schema_value_t *top, const char *want,
                       const char *got, const char *where, char *err, size_t errlen)
{
    char path[256], keys[512];
    const cyaml_schema_value_t *v = schema_of(log, 0, top);

    path_of(log, 0, NULL, path, sizeof(path));
    if (!strcmp(want, "MAPPING") && path[0] == '\0')
        return ff_fail(err, errlen, where, "the file must be a mapping of keys (allowed: %s)",
                       allowed(top, keys, sizeof(keys)));
    if (!strcmp(want, "MAPPING"))
        return ff_fail(err, errlen, where, "key '%s' must be a mapping of keys (allowed: %s)",
                       path, allowed(v, keys, sizeof(keys)));
    if (!strcmp(want, "SEQUENCE") && v && v->type == CYAML_SEQUENCE)
        return ff_fail(err, errlen, where, "key '%s' must be a list (%u to %u entries)", path,
                       v->sequence.min, v->sequence.max);
    return ff_fail(err, errlen, where, "key '%s' must be a single value, not %s", path,
                   !strncmp(got, "SEQUENCE", 8) ? "a list" : "a mapping");
}

int ff_cyaml_error(const struct ff_log *log, cyaml_err_t e, const cyaml_schema_value_t *top,
                   const char *where, char *err, size_t errlen)
{
    char path[256], keys[1024], a[64], b[64];
    const cyaml_schema_value_t *v;
    const char *m = log->msg;
    unsigned n, min;

    if (e == CYAML_ERR_OOM)
        return ff_fail(err, errlen, where, "out of memory"), -ENOMEM;
    if (sscanf(m, "Unexpected key: %63[^\n]", a) == 1) {
        v = schema_of(log, holder_skip(log), top);
        return ff_fail(err, errlen, where, "key '%s' is not allowed (allowed: %s)",
                       path_of(log, holder_skip(log), a, path, sizeof(path)),
                       allowed(v, keys, sizeof(keys)));
    }
    if (sscanf(m, "Missing required mapping field: %63[^\n]", a) == 1)
        return ff_fail(err, errlen, where, "key '%s' is required",
                       path_of(log, holder_skip(log), a, path, sizeof(path)));
    if (sscanf(m, "Mapping field already seen: %63[^\n]", a) == 1)
        return ff_fail(err, errlen, where, "key '%s' is given twice",
                       path_of(log, holder_skip(log), a, path, sizeof(path)));
    if (sscanf(m, "Invalid ENUM value: %63[^\n]", a) == 1)
        return ff_fail(err, errlen, where, "key '%s': \"%s\" is not allowed (allowed: %s)",
                       path_of(log, 0, NULL, path, sizeof(path)), a,
                       allowed(schema_of(log, 0, top), keys, sizeof(keys)));
    if (sscanf(m, "Expecting %63[A-Z_], got event: %63[A-Z_]", a, b) == 2)
        return wrong_shape(log, top, a, b, where, err, errlen);
    if (sscanf(m, "Insufficient entries (%u of %u min)", &n, &min) == 2 ||
        sscanf(m, "Excessive entries (%u max)", &n) == 1) {
        unsigned skip = log->n_frames > 0 && log->frame[0].kind == FF_IN_ENTRY ? 1 : 0;
        v = schema_of(log, skip, top);
        path_of(log, skip, NULL, path, sizeof(path));
        if (v && v->type == CYAML_SEQUENCE)
            return ff_fail(err, errlen, where, "key '%s': %s%u entries (allowed: %u to %u)",
                           path, m[0] == 'E' ? "more than " : "", n, v->sequence.min,
                           v->sequence.max);
    }
    path_of(log, 0, NULL, path, sizeof(path));
    if (path[0])
        return ff_fail(err, errlen, where, "key '%s': %s", path, m[0] ? m : cyaml_strerror(e));
    return ff_fail(err, errlen, where, "%s", m[0] ? m : cyaml_strerror(e));
}
