/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_fsm.c - unit tests of the run-control state machine: every (state, command) pair. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "ebf_fsm.h"

#define NSTATES 6
#define NCMDS 9

/*
 * The specification, written out independently of lib/ebf_fsm.c:
 * spec[state - 1][command - 1] is the next state, 0 for a refusal.
 */
static const enum ebf_state spec[NSTATES][NCMDS] = {
    /* configure,       start,         pause,          resume,
     * stop,            reset,         status,         shutdown,
     * act */
    [EBF_S_INITIAL - 1] = {
        EBF_S_CONFIGURED, 0, 0, 0,
        0, 0, EBF_S_INITIAL, EBF_S_INITIAL,
        0,
    },
    [EBF_S_CONFIGURED - 1] = {
        EBF_S_CONFIGURED, EBF_S_RUNNING, 0, 0,
        0, EBF_S_INITIAL, EBF_S_CONFIGURED, EBF_S_CONFIGURED,
        0,
    },
    [EBF_S_RUNNING - 1] = {
        0, 0, EBF_S_PAUSED, 0,
        EBF_S_DRAINING, 0, EBF_S_RUNNING, 0,
        EBF_S_RUNNING,
    },
    [EBF_S_PAUSED - 1] = {
        0, 0, 0, EBF_S_RUNNING,
        EBF_S_DRAINING, 0, EBF_S_PAUSED, 0,
        EBF_S_PAUSED,
    },
    [EBF_S_DRAINING - 1] = {
        0, 0, 0, 0,
        0, 0, EBF_S_DRAINING, 0,
        0,
    },
    [EBF_S_ERROR - 1] = {
        0, 0, 0, 0,
        0, EBF_S_INITIAL, EBF_S_ERROR, EBF_S_ERROR,
        0,
    },
};

static const char *const state_names[NSTATES] = {
    "INITIAL", "CONFIGURED", "RUNNING", "PAUSED", "DRAINING", "ERROR",
};

static const char *const cmd_names[NCMDS] = {
    "configure", "start", "pause", "resume", "stop", "reset", "status", "shutdown", "act",
};

/* What each state allows, in command order, as the refusal lists it. */
static const char *const allowed[NSTATES] = {
    "configure, status, shutdown",
    "configure, start, reset, status, shutdown",
    "pause, stop, status, act",
    "resume, stop, status, act",
    "status",
    "reset, status, shutdown",
};

/* Every one of the 54 pairs gives exactly the specified next state. */
START_TEST(test_table)
{
    unsigned allowed_pairs = 0;

    for (unsigned s = 1; s <= NSTATES; s++) {
        for (unsigned c = 1; c <= NCMDS; c++) {
            enum ebf_state want = spec[s - 1][c - 1];
            enum ebf_state got = ebf_fsm_next((enum ebf_state)s, (enum ebf_cmd)c);
            ck_assert_msg(got == want, "%s in %s: got %d, want %d", cmd_names[c - 1],
                          state_names[s - 1], (int)got, (int)want);
            allowed_pairs += want != 0;
        }
    }
    ck_assert_uint_eq(allowed_pairs, 20);
}
END_TEST

/* Status never changes the state; shutdown, where allowed, keeps it too. */
START_TEST(test_status_and_shutdown_keep_state)
{
    for (unsigned s = 1; s <= NSTATES; s++) {
        ck_assert_int_eq(ebf_fsm_next((enum ebf_state)s, EBF_C_STATUS), (int)s);
        enum ebf_state sh = ebf_fsm_next((enum ebf_state)s, EBF_C_SHUTDOWN);
        ck_assert(sh == 0 || sh == (enum ebf_state)s);
    }
}
END_TEST

/* States and commands outside the enums are refused in every combination. */
START_TEST(test_out_of_range)
{
    static const int bad_states[] = {0, EBF_S_END, EBF_S_END + 1, 255, -1};
    static const int bad_cmds[] = {0, EBF_C_END, EBF_C_END + 1, 255, -1};
    const unsigned nbs = sizeof(bad_states) / sizeof(bad_states[0]);
    const unsigned nbc = sizeof(bad_cmds) / sizeof(bad_cmds[0]);

    for (unsigned i = 0; i < nbs; i++) {
        for (unsigned c = 0; c <= EBF_C_END + 1; c++)
            ck_assert_int_eq(ebf_fsm_next((enum ebf_state)bad_states[i], (enum ebf_cmd)c), 0);
        ck_assert_str_eq(ebf_state_name((enum ebf_state)bad_states[i]), "?");
    }
    for (unsigned j = 0; j < nbc; j++) {
        for (unsigned s = 0; s <= EBF_S_END + 1; s++)
            ck_assert_int_eq(ebf_fsm_next((enum ebf_state)s, (enum ebf_cmd)bad_cmds[j]), 0);
        ck_assert_str_eq(ebf_cmd_name((enum ebf_cmd)bad_cmds[j]), "?");
    }
}
END_TEST

/* The enum values are the protobuf ones (ebfarm.proto State, Command). */
START_TEST(test_enum_values)
{
    static const int states[] = {EBF_S_INITIAL, EBF_S_CONFIGURED, EBF_S_RUNNING,
                                 EBF_S_PAUSED, EBF_S_DRAINING, EBF_S_ERROR};
    static const int cmds[] = {EBF_C_CONFIGURE, EBF_C_START, EBF_C_PAUSE, EBF_C_RESUME,
                               EBF_C_STOP, EBF_C_RESET, EBF_C_STATUS, EBF_C_SHUTDOWN,
                               EBF_C_ACT};

    for (unsigned i = 0; i < NSTATES; i++)
        ck_assert_int_eq(states[i], (int)i + 1);
    for (unsigned i = 0; i < NCMDS; i++)
        ck_assert_int_eq(cmds[i], (int)i + 1);
    ck_assert_int_eq(EBF_S_END, NSTATES + 1);
    ck_assert_int_eq(EBF_C_END, NCMDS + 1);
}
END_TEST

/* Names, and parsing a name back to its command. */
START_TEST(test_names)
{
    for (unsigned s = 1; s <= NSTATES; s++)
        ck_assert_str_eq(ebf_state_name((enum ebf_state)s), state_names[s - 1]);
    for (unsigned c = 1; c <= NCMDS; c++) {
        ck_assert_str_eq(ebf_cmd_name((enum ebf_cmd)c), cmd_names[c - 1]);
        ck_assert_int_eq(ebf_cmd_parse(cmd_names[c - 1]), (int)c);
        ck_assert_int_eq(ebf_cmd_parse(ebf_cmd_name((enum ebf_cmd)c)), (int)c);
    }
}
END_TEST

/* Anything that is not exactly a command name parses to 0. */
START_TEST(test_parse_rejects)
{
    static const char *const bad[] = {
        "", "?", "Start", "START", "start ", " start", "starts", "sta", "stop\n", "INITIAL",
        "run", "configured",
    };

    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(ebf_cmd_parse(bad[i]) == 0, "'%s' parsed", bad[i]);
}
END_TEST

/* Every refused pair: the exact one-line refusal naming command, state and what is allowed. */
START_TEST(test_refusal_every_pair)
{
    char want[256], got[256];
    unsigned refused = 0;

    for (unsigned s = 1; s <= NSTATES; s++) {
        for (unsigned c = 1; c <= NCMDS; c++) {
            if (spec[s - 1][c - 1])
                continue;
            snprintf(want, sizeof(want), "command '%s' is not allowed in state %s (allowed: %s)",
                     cmd_names[c - 1], state_names[s - 1], allowed[s - 1]);
            ebf_fsm_refusal((enum ebf_state)s, (enum ebf_cmd)c, got, sizeof(got));
            ck_assert_str_eq(got, want);
            refused++;
        }
    }
    ck_assert_uint_eq(refused, 54 - 20);
}
END_TEST

/* A few refusals spelled out literally, as an operator reads them. */
START_TEST(test_refusal_literal)
{
    static const struct {
        enum ebf_state s;
        enum ebf_cmd c;
        const char *text;
    } t[] = {
        {EBF_S_RUNNING, EBF_C_START,
         "command 'start' is not allowed in state RUNNING (allowed: pause, stop, status, act)"},
        {EBF_S_INITIAL, EBF_C_START,
         "command 'start' is not allowed in state INITIAL (allowed: configure, status, shutdown)"},
        {EBF_S_DRAINING, EBF_C_SHUTDOWN,
         "command 'shutdown' is not allowed in state DRAINING (allowed: status)"},
        {EBF_S_ERROR, EBF_C_CONFIGURE,
         "command 'configure' is not allowed in state ERROR (allowed: reset, status, shutdown)"},
        {EBF_S_PAUSED, EBF_C_PAUSE,
         "command 'pause' is not allowed in state PAUSED (allowed: resume, stop, status, act)"},
        {EBF_S_CONFIGURED, EBF_C_RESUME,
         "command 'resume' is not allowed in state CONFIGURED "
         "(allowed: configure, start, reset, status, shutdown)"},
        {EBF_S_CONFIGURED, EBF_C_ACT,
         "command 'act' is not allowed in state CONFIGURED "
         "(allowed: configure, start, reset, status, shutdown)"},
        {EBF_S_RUNNING, (enum ebf_cmd)10,
         "command '?' is not allowed in state RUNNING (allowed: pause, stop, status, act)"},
    };
    char buf[256];

    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        ebf_fsm_refusal(t[i].s, t[i].c, buf, sizeof(buf));
        ck_assert_str_eq(buf, t[i].text);
    }
}
END_TEST

/* A short buffer gets a truncated, terminated prefix and nothing is written past it. */
START_TEST(test_refusal_truncated)
{
    static const char full[] =
        "command 'start' is not allowed in state RUNNING (allowed: pause, stop, status, act)";
    static const size_t lens[] = {1, 2, 10, 40, 60, 64, 70, sizeof(full) - 1, sizeof(full)};
    char buf[128];

    for (unsigned i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        memset(buf, '#', sizeof(buf));
        ebf_fsm_refusal(EBF_S_RUNNING, EBF_C_START, buf, lens[i]);
        ck_assert_uint_eq(strlen(buf), lens[i] - 1);
        ck_assert_int_eq(memcmp(buf, full, lens[i] - 1), 0);
        for (size_t k = lens[i]; k < sizeof(buf); k++)
            ck_assert_int_eq(buf[k], '#');
    }
}
END_TEST

Suite *ebf_fsm_suite(void);

Suite *ebf_fsm_suite(void)
{
    Suite *s = suite_create("fsm");
    TCase *tc = tcase_create("fsm");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_table);
    tcase_add_test(tc, test_status_and_shutdown_keep_state);
    tcase_add_test(tc, test_out_of_range);
    tcase_add_test(tc, test_enum_values);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_parse_rejects);
    tcase_add_test(tc, test_refusal_every_pair);
    tcase_add_test(tc, test_refusal_literal);
    tcase_add_test(tc, test_refusal_truncated);
    suite_add_tcase(s, tc);
    return s;
}
