/* SPDX-License-Identifier: BSD-3-Clause */
/* top.c - ebfarm top: a live terminal view of a farm's metrics, or one plain-text frame. */
#include "top.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ebf_opt.h"
#include "ebf_pb.h"
#include "farm_collect.h"
#include "farm_launch.h"
#include "farm_state.h"
#include "snapsub.h"
#include "topview.h"

static volatile sig_atomic_t quit_signal;

static void on_signal(int sig)
{
    quit_signal = sig;
}

struct top_opts {
    const char *farm;
    int once;
    double interval;
    unsigned width, height;     /* 0: the terminal's, or COLUMNS and LINES */
};

static int top_args(int argc, char **argv, struct top_opts *o)
{
    static const char usage[] =
        "usage: ebfarm top [--farm NAME] [--once] [--interval S] [--width N] [--height N]\n"
        "  a live view of every process of the farm: rates, queues and credits,\n"
        "  latency p50/p99 over the last interval, rejects and losses by reason.\n"
        "  Redrawn every S seconds (1); q or Ctrl-C quits. With --once, or when\n"
        "  stdout is not a terminal, prints one plain-text frame once every\n"
        "  process has sent two snapshots, and exits (1 if some did not).\n"
        "  The frame fits --width columns and --height lines (default: the\n"
        "  terminal's, else COLUMNS and LINES, else no limit): narrower columns,\n"
        "  then GBIT/S, RUN, ROLE, FRAMES/S and the detail lines are dropped, and\n"
        "  a line names what was dropped.\n";
    static const struct option lo[] = {
        {"farm", 1, 0, 'f'}, {"once", 0, 0, 'o'}, {"interval", 1, 0, 'i'},
        {"width", 1, 0, 'w'}, {"height", 1, 0, 'H'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0},
    };
    uint64_t v;
    int ch;

    o->interval = 1.0;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'f': o->farm = optarg; break;
        case 'o': o->once = 1; break;
        case 'i':
            if (ebf_opt_double("ebfarm top", "--interval", optarg, 0.1, 3600, &o->interval))
                return -1;
            break;
        case 'w':
            if (ebf_opt_u64("ebfarm top", "--width", optarg, 20, 1000, &v))
                return -1;
            o->width = (unsigned)v;
            break;
        case 'H':
            if (ebf_opt_u64("ebfarm top", "--height", optarg, 5, 1000, &v))
                return -1;
            o->height = (unsigned)v;
            break;
        case 'h': printf("%s", usage); exit(0);
        default: fprintf(stderr, "%s", usage); return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ebfarm top: unexpected argument '%s'\n%s", argv[optind], usage);
        return -1;
    }
    return 0;
}

/* width x height: --width/--height, else the terminal's (when stdout is
 * one), else COLUMNS and LINES; 0 where none says. */
static void term_size(const struct top_opts *o, unsigned *width, unsigned *height)
{
    struct winsize ws;
    const char *c = getenv("COLUMNS"), *l = getenv("LINES");

    *width = c ? (unsigned)strtoul(c, NULL, 10) : 0;
    *height = l ? (unsigned)strtoul(l, NULL, 10) : 0;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
        *width = ws.ws_col;
        *height = ws.ws_row;
    }
    if (o->width)
        *width = o->width;
    if (o->height)
        *height = o->height;
}

/* The first epoch top saw of each process in its current run: a node
 * announcing another one later in the same run was restarted. */
static struct {
    uint32_t run;
    double epoch;                /* < 0: none yet */
} first_epoch[FARM_MAX_PROCS];

static int saw_rejoin(unsigned i, const Ebfarm__Snapshot *cur)
{
    double epoch = cur ? ebf_pb_gauge(cur, "epoch", NULL, -1) : -1;

    if (epoch < 0)
        return 0;
    if (first_epoch[i].epoch <= 0 || first_epoch[i].run != cur->run_number) {
        first_epoch[i].run = cur->run_number;
        first_epoch[i].epoch = epoch;
        return 0;
    }
    return first_epoch[i].epoch != epoch;
}

/* Each process's place (farm_state_places), for the totals. */
static int place[FARM_MAX_PROCS];

static void frame(FILE *f, const struct farm_state *st, const struct snapsub *ss,
                  unsigned width, unsigned height)
{
    struct top_proc p[FARM_MAX_PROCS];
    double now = snapsub_now();

    for (unsigned i = 0; i < ss->n; i++) {
        p[i].name = ss->p[i].name;
        p[i].component = ss->p[i].component;
        p[i].prev = ss->p[i].prev;
        p[i].cur = ss->p[i].cur;
        p[i].stale = ss->p[i].cur && !snapsub_fresh(ss, i, now);
        /* Asked only of one without fresh snapshots: a remote one costs a
         * command over ssh. */
        p[i].gone = (!p[i].cur || p[i].stale) && i < st->n &&
                    farm_launch_alive(st, &st->proc[i]) == 0;
        p[i].rejoined = !strcmp(p[i].component, "node") && saw_rejoin(i, p[i].cur);
        p[i].placed = 1;
        p[i].place = place[i];
    }
    top_frame_fit(f, st->name, p, ss->n, width, height);
}

/* Wait up to timeout_s for messages; take them. -1 on a signal. */
static int pump(struct snapsub *ss, zmq_pollitem_t *items, unsigned n_items, double timeout_s)
{
    snapsub_pollitems(ss, items);
    int rc = zmq_poll(items, (int)n_items, (long)(timeout_s * 1000));
    if (rc < 0)
        return errno == EINTR ? (quit_signal ? -1 : 0) : -1;
    for (unsigned i = 0; i < ss->n; i++)
        if (items[i].revents & ZMQ_POLLIN)
            snapsub_recv(ss, i);
    return quit_signal ? -1 : 0;
}

/* One frame after two snapshots from every process (or a timeout). */
static int run_once(const struct farm_state *st, struct snapsub *ss, const struct top_opts *o)
{
    unsigned width, height;

    zmq_pollitem_t items[FARM_MAX_PROCS];
    double deadline = snapsub_now() + 4 * ss->period_s + 2;
    unsigned missing;

    do {
        missing = 0;
        for (unsigned i = 0; i < ss->n; i++)
            missing += ss->p[i].received < 2;
        if (!missing || pump(ss, items, ss->n, 0.1) < 0)
            break;
    } while (snapsub_now() < deadline);
    term_size(o, &width, &height);
    frame(stdout, st, ss, width, height);
    fflush(stdout);
    for (unsigned i = 0; missing && i < ss->n; i++)
        if (ss->p[i].received < 2)
            fprintf(stderr, "ebfarm top: %s sent %llu snapshots of 2 (metrics endpoint %s)\n",
                    ss->p[i].name, (unsigned long long)ss->p[i].received, st->proc[i].metrics);
    return missing ? 1 : 0;
}

/* The frame at the top left, each line cut to the terminal's width. */
static void draw(const struct farm_state *st, const struct snapsub *ss, const struct top_opts *o,
                 int first)
{
    char *text = NULL, when[32];
    size_t len = 0;
    unsigned cols = 80, rows = 24, row = 0;
    time_t now = time(NULL);
    FILE *m = open_memstream(&text, &len);

    if (!m)
        return;
    term_size(o, &cols, &rows);
    cols = cols ? cols : 80;
    rows = rows > 2 ? rows : 24;
    strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
    fprintf(m, "ebfarm top  %s  every %gs  q quits\n", when, o->interval);
    frame(m, st, ss, cols, rows - 2);    /* the title above, the cursor's line below */
    fclose(m);
    fputs(first ? "\033[2J\033[H" : "\033[H", stdout);
    for (char *line = text, *nl; line && *line && row + 1 < rows; line = nl + 1, row++) {
        nl = strchr(line, '\n');
        if (!nl)
            break;
        unsigned w = (unsigned)(nl - line);
        fwrite(line, 1, w < cols ? w : cols, stdout);
        fputs("\033[K\n", stdout);
    }
    fputs("\033[J", stdout);
    fflush(stdout);
    free(text);
}

/* Whether the farm of st is still up: its state file exists (down removes it). */
static int farm_is_up(const struct farm_state *st)
{
    char path[sizeof(st->run_dir) + 16];

    snprintf(path, sizeof(path), "%s/farm.state", st->run_dir);
    return access(path, F_OK) == 0;
}

/* The live view until q, Ctrl-C, a signal or the farm taken down (then it
 * says so below the screen instead of showing every process STALE); the
 * terminal restored after. */
static int run_live(const struct farm_state *st, struct snapsub *ss, const struct top_opts *o)
{
    zmq_pollitem_t items[FARM_MAX_PROCS + 1];
    struct termios saved, raw;
    int tty_in = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
    double next = snapsub_now();
    int first = 1, down = 0;

    if (tty_in) {
        raw = saved;
        raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
        raw.c_cc[VMIN] = 0;
        raw.c_cc[VTIME] = 0;
        tcsetattr(STDIN_FILENO, TCSANOW, &raw);
    }
    fputs("\033[?1049h\033[?25l", stdout);      /* alternate screen, no cursor */
    for (;;) {
        double now = snapsub_now();
        if ((down = !farm_is_up(st)) != 0)
            break;
        if (now >= next) {
            draw(st, ss, o, first);
            first = 0;
            next = now + o->interval;
        }
        memset(&items[ss->n], 0, sizeof(items[0]));
        items[ss->n].fd = STDIN_FILENO;
        items[ss->n].events = tty_in ? ZMQ_POLLIN : 0;
        snapsub_pollitems(ss, items);
        if (zmq_poll(items, (int)ss->n + 1, (long)((next - now) * 1000) + 1) < 0 &&
            errno != EINTR)
            break;
        if (quit_signal)
            break;
        for (unsigned i = 0; i < ss->n; i++)
            if (items[i].revents & ZMQ_POLLIN)
                snapsub_recv(ss, i);
        char c;
        if ((items[ss->n].revents & ZMQ_POLLIN) && read(STDIN_FILENO, &c, 1) == 1 &&
            (c == 'q' || c == 'Q' || c == 3))
            break;
    }
    fputs("\033[?25h\033[?1049l", stdout);
    fflush(stdout);
    if (tty_in)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    if (down)
        printf("ebfarm top: farm '%s' is down (ebfarm down removed its state)\n", st->name);
    return 0;
}

int cmd_top(int argc, char **argv)
{
    struct top_opts o = {0};
    struct farm_state st;
    struct snapsub *ss = malloc(sizeof(*ss));
    struct sigaction sa;
    char err[1024];
    int rc = 1;

    if (!ss || top_args(argc, argv, &o))
        goto out;
    if (farm_state_find(o.farm, &st, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm top: %s\n", err);
        goto out;
    }
    if (snapsub_open(ss, &st, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm top: %s\n", err);
        goto out;
    }
    farm_state_places(&st, place);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    if (o.once || !isatty(STDOUT_FILENO))
        rc = run_once(&st, ss, &o);
    else
        rc = run_live(&st, ss, &o);
    snapsub_close(ss);
out:
    free(ss);
    return rc;
}
