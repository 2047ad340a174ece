/* SPDX-License-Identifier: BSD-3-Clause */
/* prom.c - ebfarm metrics --prometheus: a small HTTP server exporting a farm's latest snapshots. */
#include "prom.h"

#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "farm_fo_view.h"
#include "farm_state.h"
#include "promtext.h"
#include "snapsub.h"

#define MAX_CLIENTS 16
#define CLIENT_TIMEOUT_S 10.0

/* One HTTP connection: reading its request, then writing the answer. */
struct client {
    int fd;                  /* -1: slot free */
    char in[4096];
    size_t in_len;
    char *out;               /* the whole response; NULL while reading */
    size_t out_len, out_off;
    double deadline;
};

static volatile sig_atomic_t quit_signal;

/* The farm's state file: the farm is up while it exists (ebfarm_farm_up).
 * One exporter serves one farm, so one path for the process. */
static char state_path[sizeof(((struct farm_state *)0)->run_dir) + 16];

static void on_signal(int sig)
{
    quit_signal = sig;
}

struct prom_opts {
    const char *farm, *listen;
    int prometheus;
};

/* Whether --listen's addr names a port 0..65535 in decimal and an address
 * that is not a wildcard (0.0.0.0, ::, *: the farm file refuses them too).
 * 0, or -1 after a message naming the option and the fix. */
static int listen_check(const char *addr)
{
    const char *colon = strrchr(addr, ':');
    char *end;
    size_t hl = colon ? (size_t)(colon - addr) : 0;

    if (!colon || !hl || !colon[1]) {
        fprintf(stderr, "ebfarm metrics: --listen '%s' is not HOST:PORT (e.g. 127.0.0.1:9464)\n",
                addr);
        return -1;
    }
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (*end || colon[1] == '-' || colon[1] == '+' || port > 65535) {
        fprintf(stderr, "ebfarm metrics: --listen '%s': the port \"%s\" is not in 0..65535 "
                "(0 picks a free one)\n", addr, colon + 1);
        return -1;
    }
    static const char *const wild[] = {"0.0.0.0", "::", "[::]", "*", "[*]"};
    for (unsigned i = 0; i < sizeof(wild) / sizeof(wild[0]); i++)
        if (strlen(wild[i]) == hl && strncmp(addr, wild[i], hl) == 0) {
            fprintf(stderr, "ebfarm metrics: --listen '%s': a wildcard address serves the farm's "
                    "metrics on every interface; give the one address to serve on (e.g. "
                    "127.0.0.1:9464, or this host's address on the monitoring network)\n", addr);
            return -1;
        }
    return 0;
}

static int prom_args(int argc, char **argv, struct prom_opts *o)
{
    static const char usage[] =
        "usage: ebfarm metrics --prometheus [--farm NAME] [--listen HOST:PORT]\n"
        "  serves the farm's metrics in the Prometheus text format on\n"
        "  http://HOST:PORT/metrics (default 127.0.0.1:9464; port 0 picks a free\n"
        "  one). Prints the address it serves on, then runs until Ctrl-C.\n";
    static const struct option lo[] = {
        {"prometheus", 0, 0, 'p'}, {"farm", 1, 0, 'f'}, {"listen", 1, 0, 'l'},
        {"help", 0, 0, 'h'}, {0, 0, 0, 0},
    };
    int ch;

    o->listen = "127.0.0.1:9464";
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'p': o->prometheus = 1; break;
        case 'f': o->farm = optarg; break;
        case 'l': o->listen = optarg; break;
        case 'h': printf("%s", usage); exit(0);
        default: fprintf(stderr, "%s", usage); return -1;
        }
    }
    if (optind < argc || !o->prometheus) {
        fprintf(stderr, "ebfarm metrics: %s\n%s",
                optind < argc ? "unexpected argument" : "say --prometheus (the only format)",
                usage);
        return -1;
    }
    return listen_check(o->listen);
}

/*
 * A listening TCP socket on "host:port" ("[v6]:port" for IPv6), non-blocking.
 * Returns the fd, or -1 with err saying what was wrong.
 */
static int listen_on(const char *addr, char *err, size_t len)
{
    char host[256];
    const char *colon = strrchr(addr, ':');
    struct addrinfo hints = {0}, *res = NULL, *ai;
    int fd = -1, one = 1;

    if (!colon || colon == addr || !colon[1] || (size_t)(colon - addr) >= sizeof(host)) {
        snprintf(err, len, "--listen '%s' is not HOST:PORT (e.g. 127.0.0.1:9464)", addr);
        return -1;
    }
    snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int e = getaddrinfo(host, colon + 1, &hints, &res);
    if (e) {
        snprintf(err, len, "--listen '%s': %s", addr, gai_strerror(e));
        return -1;
    }
    snprintf(err, len, "--listen '%s': no address to bind", addr);
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 16) != 0) {
            snprintf(err, len, "cannot listen on '%s': %s", addr, strerror(errno));
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

/* The farm's failover gauges (farm_fo_view_prom) from the n processes'
 * latest snapshots, a stale one counting as gone (as top does); nothing
 * when failover is off. */
static void failover_gauges(FILE *m, const struct prom_proc *p, unsigned n, const char *farm)
{
    struct farm_fo_view v;

    farm_fo_view_init(&v);
    for (unsigned i = 0; i < n; i++) {
        int role = !strcmp(p[i].component, "sfc") ? FARM_SFC
                   : !strcmp(p[i].component, "readout") ? FARM_READOUT : FARM_NODE;
        farm_fo_view_snapshot(&v, (enum farm_role)role, p[i].process, p[i].up ? p[i].snap : NULL);
    }
    farm_fo_view_end(&v);
    farm_fo_view_prom(m, &v, farm);
}

/* The exposition of every process's latest snapshot, in a malloc'd string. */
static char *exposition(const struct snapsub *ss, const char *farm, size_t *len)
{
    struct prom_proc p[FARM_MAX_PROCS];
    double now = snapsub_now();
    char *text = NULL;
    FILE *m = open_memstream(&text, len);

    if (!m)
        return NULL;
    for (unsigned i = 0; i < ss->n; i++) {
        p[i].component = ss->p[i].component;
        p[i].process = ss->p[i].name;
        p[i].farm = farm;
        p[i].snap = ss->p[i].cur;
        p[i].up = snapsub_fresh(ss, i, now);
    }
    fprintf(m, "# HELP ebfarm_farm_up 1 while the farm is up (its state file exists), 0 once it "
            "is down: the alerts on processes apply only while it is 1.\n"
            "# TYPE ebfarm_farm_up gauge\nebfarm_farm_up{farm=\"%s\"} %d\n", farm,
            access(state_path, F_OK) == 0);
    failover_gauges(m, p, ss->n, farm);
    int rc = prom_render(m, p, ss->n);
    fclose(m);
    if (rc == -ENOMEM) {
        free(text);
        return NULL;
    }
    return text;
}

/* fmt formatted into a malloc'd string, its length in *len; NULL when
 * out of memory. */
static char *format(size_t *len, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static char *format(size_t *len, const char *fmt, ...)
{
    char *s = NULL;
    FILE *m = open_memstream(&s, len);
    va_list ap;

    if (!m)
        return NULL;
    va_start(ap, fmt);
    vfprintf(m, fmt, ap);
    va_end(ap);
    fclose(m);
    return s;
}

/* The body for method and target (a malloc'd string, *len bytes), with
 * its status and content type: the exposition at /metrics, a link to it
 * at /, else the status line as text. */
static char *answer(const char *method, const char *target, const struct snapsub *ss,
                    const char *farm, size_t *len, const char **status, const char **type)
{
    static const char page[] =
        "<html><head><title>ebfarm exporter</title></head><body>"
        "<h1>ebfarm exporter</h1><p>Farm '%s': <a href=\"/metrics\">/metrics</a>"
        " (docs/monitoring.md).</p></body></html>\n";
    char *body = NULL;

    *status = "200 OK";
    *type = "text/plain; version=0.0.4; charset=utf-8";
    if (strcmp(method, "HEAD") != 0 && strcmp(method, "GET") != 0) {
        *status = "405 Method Not Allowed";
    } else if (strcmp(target, "/metrics") == 0) {
        body = exposition(ss, farm, len);
        if (!body)
            *status = "500 Internal Server Error";
    } else if (strcmp(target, "/") == 0) {
        *type = "text/html; charset=utf-8";
        body = format(len, page, farm);
    } else {
        *status = "404 Not Found";
    }
    if (!body) {
        *type = "text/plain; charset=utf-8";
        body = format(len, "%s\n", *status);
    }
    return body;
}

/* The response to the request line in c->in: status, headers, body. */
static void respond(struct client *c, const struct snapsub *ss, const char *farm)
{
    char method[16] = "", target[256] = "", version[16] = "HTTP/1.0";
    const char *status, *type;
    size_t body_len = 0, out_len = 0;
    char *out = NULL;

    sscanf(c->in, "%15s %255s %15s", method, target, version);
    char *q = strchr(target, '?');
    if (q)
        *q = '\0';
    char *body = answer(method, target, ss, farm, &body_len, &status, &type);
    FILE *m = open_memstream(&out, &out_len);
    if (m) {
        fprintf(m, "%s %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
                   "Connection: close\r\n\r\n",
                strcmp(version, "HTTP/1.1") == 0 ? "HTTP/1.1" : "HTTP/1.0", status, type,
                body ? body_len : 0, strncmp(status, "405", 3) == 0 ? "Allow: GET, HEAD\r\n" : "");
        if (strcmp(method, "HEAD") != 0 && body)
            fwrite(body, 1, body_len, m);
        fclose(m);
    }
    free(body);
    c->out = out;
    c->out_len = out ? out_len : 0;
    c->out_off = 0;
}

static void client_close(struct client *c)
{
    close(c->fd);
    free(c->out);
    c->fd = -1;
    c->out = NULL;
    c->in_len = c->out_len = c->out_off = 0;
}

static void client_accept(int lfd, struct client *cl)
{
    int fd;

    while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
        unsigned k = 0;
        while (k < MAX_CLIENTS && cl[k].fd >= 0)
            k++;
        if (k == MAX_CLIENTS) {
            close(fd);              /* busy: the scraper retries */
            continue;
        }
        cl[k].fd = fd;
        cl[k].deadline = snapsub_now() + CLIENT_TIMEOUT_S;
    }
}

/* Read what the client sent; answer once the headers are complete. */
static void client_read(struct client *c, const struct snapsub *ss, const char *farm)
{
    ssize_t n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - 1 - c->in_len, 0);

    if (n <= 0) {
        if (n == 0 || (errno != EAGAIN && errno != EINTR))
            client_close(c);
        return;
    }
    c->in_len += (size_t)n;
    c->in[c->in_len] = '\0';
    if (strstr(c->in, "\r\n\r\n") || strstr(c->in, "\n\n") || c->in_len == sizeof(c->in) - 1)
        respond(c, ss, farm);
    if (c->out == NULL && c->in_len == sizeof(c->in) - 1)
        client_close(c);
}

static void client_write(struct client *c)
{
    ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n > 0)
        c->out_off += (size_t)n;
    if (n <= 0 || c->out_off == c->out_len)
        client_close(c);
}

/* Serve until a signal: SUB sockets, the listening socket and clients in one zmq_poll. */
static void serve(struct snapsub *ss, int lfd, const char *farm)
{
    zmq_pollitem_t items[FARM_MAX_PROCS + 1 + MAX_CLIENTS];
    struct client cl[MAX_CLIENTS];
    unsigned slot[MAX_CLIENTS];

    for (unsigned k = 0; k < MAX_CLIENTS; k++)
        cl[k].fd = -1, cl[k].out = NULL, cl[k].in_len = 0;
    while (!quit_signal) {
        unsigned n = ss->n;
        snapsub_pollitems(ss, items);
        memset(&items[n], 0, sizeof(items[0]));
        items[n].fd = lfd;
        items[n].events = ZMQ_POLLIN;
        n++;
        for (unsigned k = 0; k < MAX_CLIENTS; k++) {
            if (cl[k].fd < 0)
                continue;
            memset(&items[n], 0, sizeof(items[0]));
            items[n].fd = cl[k].fd;
            items[n].events = cl[k].out ? ZMQ_POLLOUT : ZMQ_POLLIN;
            slot[n - ss->n - 1] = k;
            n++;
        }
        if (zmq_poll(items, (int)n, 500) < 0 && errno != EINTR)
            break;
        for (unsigned i = 0; i < ss->n; i++)
            if (items[i].revents & ZMQ_POLLIN)
                snapsub_recv(ss, i);
        for (unsigned i = ss->n + 1; i < n; i++) {
            struct client *c = &cl[slot[i - ss->n - 1]];
            if (items[i].revents & (ZMQ_POLLERR | ZMQ_POLLIN | ZMQ_POLLOUT))
                c->out ? client_write(c) : client_read(c, ss, farm);
        }
        if (items[ss->n].revents & ZMQ_POLLIN)
            client_accept(lfd, cl);
        double now = snapsub_now();
        for (unsigned k = 0; k < MAX_CLIENTS; k++)
            if (cl[k].fd >= 0 && now > cl[k].deadline)
                client_close(&cl[k]);
    }
    for (unsigned k = 0; k < MAX_CLIENTS; k++)
        if (cl[k].fd >= 0)
            client_close(&cl[k]);
}

/* "http://host:port/metrics" of the bound socket. */
static void print_address(int fd, const char *farm)
{
    struct sockaddr_storage sa;
    socklen_t sl = sizeof(sa);
    char host[128] = "?", port[16] = "?";

    if (getsockname(fd, (struct sockaddr *)&sa, &sl) == 0)
        getnameinfo((struct sockaddr *)&sa, sl, host, sizeof(host), port, sizeof(port),
                    NI_NUMERICHOST | NI_NUMERICSERV);
    printf("ebfarm metrics: farm '%s' on http://%s%s%s:%s/metrics\n", farm,
           sa.ss_family == AF_INET6 ? "[" : "", host, sa.ss_family == AF_INET6 ? "]" : "", port);
    fflush(stdout);
}

int cmd_metrics(int argc, char **argv)
{
    struct prom_opts o = {0};
    struct farm_state st;
    struct snapsub *ss = malloc(sizeof(*ss));
    struct sigaction sa;
    char err[1024];
    int lfd = -1, rc = 1;

    if (!ss || prom_args(argc, argv, &o))
        goto out;
    if (farm_state_find(o.farm, &st, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm metrics: %s\n", err);
        goto out;
    }
    snprintf(state_path, sizeof(state_path), "%s/farm.state", st.run_dir);
    if ((lfd = listen_on(o.listen, err, sizeof(err))) < 0) {
        fprintf(stderr, "ebfarm metrics: %s\n", err);
        goto out;
    }
    if (snapsub_open(ss, &st, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm metrics: %s\n", err);
        goto out;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    print_address(lfd, st.name);
    serve(ss, lfd, st.name);
    snapsub_close(ss);
    rc = 0;
out:
    if (lfd >= 0)
        close(lfd);
    free(ss);
    return rc;
}
