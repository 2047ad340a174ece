/* SPDX-License-Identifier: BSD-3-Clause */
/* test-man.c - the manual pages against the programs: an entry for every option a --help lists and every farm-file key, none for what the programs do not take. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "farmfile_schema.h"
#include "test-help.h"

#define HELP_MAX 16384
#define TAGS_MAX 400
#define REPORT_MAX 4096
#define SS_MAX 64

/* One .TP entry of a page: the tag line, as plain text, and where it is. */
struct tag {
    char sh[64];                 /* the .SH heading */
    char ss[128];                /* the .SS heading, "" before the first */
    char text[256];
};

struct page {
    char name[64];
    unsigned n, n_ss;
    struct tag t[TAGS_MAX];
    char ss[SS_MAX][128];        /* every .SS heading, as plain text */
};

static char help[HELP_MAX];
static struct page pg;

/* A roff line as plain text: no macro name, font changes, quotes or
 * zero-width escapes; \- is '-', \(aq '\'', \e '\\'. */
static void roff_plain(const char *in, char *out, size_t len)
{
    size_t o = 0;

    if (*in == '.')
        in += strcspn(in, " \n");
    while (*in == ' ')
        in++;
    for (; *in && *in != '\n' && o + 1 < len; in++) {
        if (*in == '"')
            continue;
        if (*in != '\\') {
            out[o++] = *in;
            continue;
        }
        in++;
        if (*in == '-' || *in == 'e') {
            out[o++] = *in == '-' ? '-' : '\\';
        } else if (*in == 'f') {
            in += in[1] == '(' ? 3 : 1;
        } else if (*in == '(') {
            if (strncmp(in + 1, "aq", 2) == 0)
                out[o++] = '\'';
            in += 2;
        } else if (*in == '\0') {
            break;
        }
    }
    out[o] = '\0';
}

/* Load man/<name>: every .TP tag with its .SH and .SS headings. */
static void page_load(const char *name, struct page *p)
{
    char path[1024], line[1024], sh[64] = "", ss[128] = "";
    int tag_next = 0;

    snprintf(path, sizeof(path), "%s/man/%s", source_dir(), name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "%s", name);
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, ".\\\"", 3) == 0)
            continue;
        if (strncmp(line, ".SH ", 4) == 0) {
            roff_plain(line, sh, sizeof(sh));
            ss[0] = '\0';
        } else if (strncmp(line, ".SS ", 4) == 0) {
            roff_plain(line, ss, sizeof(ss));
            ck_assert_uint_lt(p->n_ss, SS_MAX);
            snprintf(p->ss[p->n_ss++], sizeof(p->ss[0]), "%s", ss);
        } else if (strncmp(line, ".TP", 3) == 0) {
            tag_next = 1;
        } else if (tag_next) {
            ck_assert_uint_lt(p->n, TAGS_MAX);
            struct tag *t = &p->t[p->n++];
            snprintf(t->sh, sizeof(t->sh), "%s", sh);
            snprintf(t->ss, sizeof(t->ss), "%s", ss);
            roff_plain(line, t->text, sizeof(t->text));
            tag_next = 0;
        }
    }
    fclose(f);
}

/* Whether ss is the subsection "<prefix>" or starts with "<prefix> ". */
static int ss_is(const char *ss, const char *prefix)
{
    size_t n = strlen(prefix);

    return strncmp(ss, prefix, n) == 0 && (ss[n] == '\0' || ss[n] == ' ');
}

/* The options in the tags of section sh (and subsection ss, when not NULL). */
static void tag_options(const struct page *p, const char *sh, const char *ss, struct words *out)
{
    memset(out, 0, sizeof(*out));
    for (unsigned i = 0; i < p->n; i++)
        if (strcmp(p->t[i].sh, sh) == 0 && (!ss || ss_is(p->t[i].ss, ss)))
            options_in(p->t[i].text, out);
}

static void report_add(char *report, const char *fmt, const char *a, const char *b)
{
    size_t o = strlen(report);

    snprintf(report + o, REPORT_MAX - o, fmt, a, b);
}

/*
 * Compare the options of help text h with the tags of a page section:
 * report (cleared first) names each option with no entry and each entry
 * for an option h does not name (--help is taken by every program).
 */
static void check_options(const struct page *p, const char *sh, const char *ss, const char *h,
                          char *report)
{
    static struct words want, got;

    memset(&want, 0, sizeof(want));
    options_in(h, &want);
    tag_options(p, sh, ss, &got);
    report[0] = '\0';
    for (unsigned i = 0; i < want.n; i++)
        if (!words_has(&got, want.w[i]))
            report_add(report, "%s: no entry for %s; ", p->name, want.w[i]);
    for (unsigned i = 0; i < got.n; i++)
        if (!words_has(&want, got.w[i]) && strcmp(got.w[i], "--help") != 0)
            report_add(report, "%s: %s is not in --help; ", p->name, got.w[i]);
}

static void help_of(const char *cmd)
{
    char line[1024];

    snprintf(line, sizeof(line), "%s --help", cmd);
    ck_assert_msg(run_cmd(line, help, sizeof(help)) == 0, "%s did not exit 0", line);
    ck_assert_msg(strstr(help, "--") != NULL, "%s lists no option: %s", line, help);
}

static const char *const daemons[] = {"readout", "sfc", "node"};

START_TEST(daemon_options)
{
    char cmd[1024], page[64], report[REPORT_MAX];

    snprintf(cmd, sizeof(cmd), "%s/%s/ebfarm-%s", build_dir(), daemons[_i], daemons[_i]);
    snprintf(page, sizeof(page), "ebfarm-%s.8", daemons[_i]);
    help_of(cmd);
    page_load(page, &pg);
    check_options(&pg, "OPTIONS", NULL, help, report);
    ck_assert_msg(report[0] == '\0', "%s", report);
}
END_TEST

START_TEST(loopback_options)
{
    static char via_ebfarm[HELP_MAX];
    char cmd[1024], report[REPORT_MAX];

    snprintf(cmd, sizeof(cmd), "%s/tools/ebfarm loopback", build_dir());
    help_of(cmd);
    snprintf(via_ebfarm, sizeof(via_ebfarm), "%s", help);
    snprintf(cmd, sizeof(cmd), "%s/loopback/ebfarm-loopback", build_dir());
    help_of(cmd);
    ck_assert_str_eq(via_ebfarm, help);
    page_load("ebfarm-loopback.8", &pg);
    check_options(&pg, "OPTIONS", NULL, help, report);
    ck_assert_msg(report[0] == '\0', "%s", report);
}
END_TEST

/* The subcommands `ebfarm help` lists: its lines "  NAME ..." after "commands:". */
static void subcommands(struct words *out)
{
    static char text[HELP_MAX];
    char cmd[1024];

    memset(out, 0, sizeof(*out));
    snprintf(cmd, sizeof(cmd), "%s/tools/ebfarm help", build_dir());
    ck_assert_int_eq(run_cmd(cmd, text, sizeof(text)), 0);
    const char *p = strstr(text, "commands:\n");
    ck_assert_ptr_nonnull(p);
    for (p = strchr(p, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
        if (p[1] == ' ' && p[2] == ' ' && p[3] >= 'a' && p[3] <= 'z')
            words_add(out, p + 3, strspn(p + 3, "abcdefghijklmnopqrstuvwxyz"));
}

START_TEST(ebfarm_subcommands)
{
    struct words subs;
    char cmd[1024], ss[128], report[REPORT_MAX];

    subcommands(&subs);
    ck_assert_uint_ge(subs.n, 10);
    ck_assert_str_eq(subs.w[0], "demo");
    page_load("ebfarm.1", &pg);
    for (unsigned i = 0; i < subs.n; i++) {
        snprintf(ss, sizeof(ss), "ebfarm %s", subs.w[i]);
        /* Its own subsection, also for those with no options of their own. */
        int found = 0;
        for (unsigned k = 0; k < pg.n_ss && !found; k++)
            found = ss_is(pg.ss[k], ss);
        ck_assert_msg(found, "ebfarm.1 has no subsection \"%s\"", ss);
        if (strcmp(subs.w[i], "help") == 0 || strcmp(subs.w[i], "keygen") == 0 ||
            strcmp(subs.w[i], "loopback") == 0)
            continue;    /* no options; loopback's are in ebfarm-loopback.8 */
        snprintf(cmd, sizeof(cmd), "%s/tools/ebfarm %s", build_dir(), subs.w[i]);
        help_of(cmd);
        check_options(&pg, "COMMANDS", ss, help, report);
        ck_assert_msg(report[0] == '\0', "%s", report);
    }
}
END_TEST

/* Whether word is one of the tokens (runs of [A-Za-z0-9_.[]-]) of text. */
static int has_token(const char *text, const char *word)
{
    static const char tok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.[]-";
    size_t n = strlen(word);

    for (const char *p = text; *p;) {
        size_t k = strspn(p, tok);
        if (k == n && strncmp(p, word, n) == 0)
            return 1;
        p += k ? k : 1;
    }
    return 0;
}

/* Whether subsection ss documents the mapping called section: ss is it,
 * or names it among its tokens ("Every process: readouts[], sfcs[], ..."). */
static int ss_covers(const char *ss, const char *section)
{
    return strcmp(ss, section) == 0 || has_token(ss, section);
}

/* The subsection of the farm file's top-level keys. */
#define TOP "Top level"

/* Each key of fields has an entry in a subsection that covers section. */
static void keys_have_entries(const struct page *p, const cyaml_schema_field_t *fields,
                              const char *section, char *report)
{
    for (const cyaml_schema_field_t *f = fields; f->key; f++) {
        int found = 0;
        for (unsigned i = 0; i < p->n && !found; i++)
            found = ss_covers(p->t[i].ss, section) && has_token(p->t[i].text, f->key);
        if (!found)
            report_add(report, "no entry for key '%s' in subsection '%s'; ", f->key, section);
    }
}

/* Each word of an entry in a subsection that covers section is a key of fields. */
static void entries_are_keys(const struct page *p, const cyaml_schema_field_t *fields,
                             const char *section, char *report)
{
    for (unsigned i = 0; i < p->n; i++) {
        char text[256], *save = NULL;
        if (!ss_covers(p->t[i].ss, section))
            continue;
        snprintf(text, sizeof(text), "%s", p->t[i].text);
        for (char *w = strtok_r(text, " ,/", &save); w; w = strtok_r(NULL, " ,/", &save)) {
            const cyaml_schema_field_t *f = fields;
            while (f->key && strcmp(f->key, w) != 0)
                f++;
            if (!f->key)
                report_add(report, "entry '%s' in subsection '%s' is no key there; ", w, section);
        }
    }
}

/*
 * Check one mapping of the schema against the subsections that cover it,
 * both ways, then its mappings and lists of mappings: subsections "key"
 * and "key[]" (nested: "parent.key"). Findings are appended to report.
 */
static void check_mapping(const struct page *p, const cyaml_schema_field_t *fields,
                          const char *section, char *report)
{
    const char *base = strcmp(section, TOP) == 0 ? "" : section;
    const char *dot = *base ? "." : "";

    keys_have_entries(p, fields, section, report);
    entries_are_keys(p, fields, section, report);
    for (const cyaml_schema_field_t *f = fields; f->key; f++) {
        const cyaml_schema_value_t *v = &f->value;
        char sub[128];
        if (v->type == CYAML_MAPPING) {
            snprintf(sub, sizeof(sub), "%s%s%s", base, dot, f->key);
            check_mapping(p, v->mapping.fields, sub, report);
        } else if (v->type == CYAML_SEQUENCE && v->sequence.entry->type == CYAML_MAPPING) {
            snprintf(sub, sizeof(sub), "%s%s%s[]", base, dot, f->key);
            check_mapping(p, v->sequence.entry->mapping.fields, sub, report);
        }
    }
}

START_TEST(farmfile_keys)
{
    char report[REPORT_MAX] = "";

    ck_assert_int_eq(ff_farm_schema.type, CYAML_MAPPING);
    page_load("ebfarm-farm.5", &pg);
    check_mapping(&pg, ff_farm_schema.mapping.fields, TOP, report);
    ck_assert_msg(report[0] == '\0', "ebfarm-farm.5: %s", report);
}
END_TEST

/* The checks fail when a page lacks an option or lists one too many, and
 * when the farm-file page lacks a key. */
START_TEST(checks_fail)
{
    char cmd[1024], report[REPORT_MAX] = "";

    snprintf(cmd, sizeof(cmd), "%s/sfc/ebfarm-sfc", build_dir());
    help_of(cmd);
    page_load("ebfarm-sfc.8", &pg);
    for (unsigned i = 0; i < pg.n; i++)
        if (strncmp(pg.t[i].text, "--capacity ", 11) == 0)
            snprintf(pg.t[i].text, sizeof(pg.t[i].text), "--capacities N");
    check_options(&pg, "OPTIONS", NULL, help, report);
    ck_assert_str_eq(report, "ebfarm-sfc.8: no entry for --capacity; "
                             "ebfarm-sfc.8: --capacities is not in --help; ");

    page_load("ebfarm-farm.5", &pg);
    for (unsigned i = 0; i < pg.n; i++)
        if (strcmp(pg.t[i].ss, "run") == 0 && strcmp(pg.t[i].text, "mtu") == 0)
            snprintf(pg.t[i].ss, sizeof(pg.t[i].ss), "sfcs[]");
    report[0] = '\0';
    check_mapping(&pg, ff_farm_schema.mapping.fields, TOP, report);
    ck_assert_str_eq(report, "no entry for key 'mtu' in subsection 'run'; "
                             "entry 'mtu' in subsection 'sfcs[]' is no key there; ");
}
END_TEST

Suite *man_suite(void);

Suite *man_suite(void)
{
    Suite *s = suite_create("man");
    TCase *tc = tcase_create("options");

    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, daemon_options, 0, 3);
    tcase_add_test(tc, loopback_options);
    tcase_add_test(tc, ebfarm_subcommands);
    tcase_add_test(tc, farmfile_keys);
    tcase_add_test(tc, checks_fail);
    suite_add_tcase(s, tc);
    return s;
}
