/* SPDX-License-Identifier: BSD-3-Clause */
/* test-deployment.c - the worked farm file of docs/deployment.md loads and checks: four ssh hosts, their processes, jumbo frames. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "farmfile.h"

/* The first ```yaml block after heading in the page at path, into buf. */
static size_t yaml_block(const char *path, const char *heading, char *buf, size_t len)
{
    static char page[65536];
    FILE *f = fopen(path, "r");

    ck_assert_msg(f != NULL, "cannot read %s", path);
    size_t n = fread(page, 1, sizeof(page) - 1, f);
    fclose(f);
    page[n] = '\0';
    const char *h = strstr(page, heading);
    ck_assert_msg(h != NULL, "%s has no heading '%s'", path, heading);
    const char *start = strstr(h, "```yaml\n");
    ck_assert_ptr_nonnull(start);
    start += 8;
    const char *end = strstr(start, "```\n");
    ck_assert_ptr_nonnull(end);
    ck_assert_uint_lt((size_t)(end - start), len);
    memcpy(buf, start, (size_t)(end - start));
    buf[end - start] = '\0';
    return (size_t)(end - start);
}

START_TEST(worked_farm_file)
{
    static struct farm_spec s;
    char yaml[16384], err[1024];
    size_t n = yaml_block(EBF_SOURCE_ROOT "/docs/deployment.md", "## 12. The worked farm file",
                          yaml, sizeof(yaml));

    ck_assert_msg(farm_spec_parse(yaml, n, "docs/deployment.md", &s, err, sizeof(err)) == 0,
                  "%s", err);
    ck_assert_msg(farm_spec_check(&s, err, sizeof(err)) == 0, "%s", err);
    ck_assert_str_eq(s.name, "rack1");
    ck_assert_uint_eq(s.n_hosts, 4);
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_int_eq(s.host[i].kind, FF_HOST_SSH);
        ck_assert_str_eq(s.host[i].user, "root");
    }
    ck_assert_str_eq(s.host[3].address, "10.10.0.22");
    ck_assert_uint_eq(s.n_readouts, 1);
    ck_assert_uint_eq(s.n_sfcs, 1);
    ck_assert_uint_eq(s.n_nodes, 4);
    ck_assert_uint_eq(s.run.mtu, 9000);
    ck_assert_str_eq(s.host[s.sfc[0].p.host].name, "sfc-host");
    ck_assert_str_eq(s.host[s.node[3].p.host].name, "node-b");
    ck_assert_str_eq(s.node[1].p.control, "tcp://{host}:5552");
    ck_assert_str_eq(s.keys, "/etc/ebfarm/keys");
    /* Its host defaults reach the processes: the hugepage mount. */
    ck_assert_uint_eq(s.node[2].p.n_eal_args, 1);
    ck_assert_str_eq(s.node[2].p.eal_args[0], "--huge-dir=/dev/hugepages1G");
}
END_TEST

Suite *deployment_suite(void);

Suite *deployment_suite(void)
{
    Suite *s = suite_create("deployment");
    TCase *tc = tcase_create("deployment");

    tcase_add_test(tc, worked_farm_file);
    suite_add_tcase(s, tc);
    return s;
}
