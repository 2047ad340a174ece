/* SPDX-License-Identifier: BSD-3-Clause */
/* check-main.c - runs one Check suite, named at build time by EBF_SUITE. */
#include <check.h>
#include <stdlib.h>

Suite *EBF_SUITE(void);

int main(void)
{
    SRunner *sr = srunner_create(EBF_SUITE());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
