/* SPDX-License-Identifier: BSD-3-Clause */
/* check-main.c - runs one Check suite, named at build time by EBF_SUITE. */
#include <check.h>
#include <stdlib.h>

Suite *EBF_SUITE(void);

/* A failed check's message may quote a whole command's output (a farm's
 * status or summary, up to 64 KiB in the farm tests); Check's default of
 * 4,096 bytes ends the test with "Message string too long" instead. */
#define MAX_MSG_SIZE (128u * 1024)

int main(void)
{
    SRunner *sr;
    int failed;

    check_set_max_msg_size(MAX_MSG_SIZE);
    sr = srunner_create(EBF_SUITE());

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
