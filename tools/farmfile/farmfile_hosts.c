/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_hosts.c - the farm file's hosts: the list converted and checked, and each process's host. */
#include "farmfile_hosts.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "farmfile.h"
#include "farmfile_claims.h"
#include "farmfile_cross.h"

static const char *const kind_names[] = {
    [FF_HOST_LOCAL] = "local", [FF_HOST_SSH] = "ssh", [FF_HOST_NETNS] = "netns",
};

/* --- Forms ----------------------------------------------------------------- */

/* 1 when s is 1..max characters of a-z, A-Z, 0-9, '.', '_' and '-', and
 * does not start with bad_first. */
static int label_ok(const char *s, size_t max, char bad_first)
{
    size_t n = strlen(s);

    if (n == 0 || n > max || s[0] == bad_first)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
            return 0;
    return 1;
}

static int user_ok(const char *s)
{
    return label_ok(s, FF_NAME_MAX - 1, '-');
}

static int netns_ok(const char *s)
{
    return label_ok(s, FF_NAME_MAX - 1, '.');
}

/* RFC 1123: dot-separated labels of 1..63 letters, digits and hyphens, not
 * starting or ending with a hyphen, at most 253 characters; the last label
 * is not all digits (so "10.0.0.256" is no hostname). */
static int hostname_ok(const char *s)
{
    size_t n = strlen(s), len = 0;
    int digits_only = 1;

    if (n == 0 || n > 253 || s[n - 1] == '.')
        return 0;
    for (const char *p = s;; p++) {
        if (*p == '.' || *p == '\0') {
            if (len == 0 || len > 63 || p[-1] == '-')
                return 0;
            if (*p == '\0')
                return !digits_only;
            len = 0;
            digits_only = 1;
            continue;
        }
        if (!isalnum((unsigned char)*p) && *p != '-')
            return 0;
        if (len == 0 && *p == '-')
            return 0;
        digits_only &= isdigit((unsigned char)*p) != 0;
        len++;
    }
}

/* An IPv6 address, optionally with a zone ("fe80::1%eth0"). */
static int ipv6_ok(const char *s)
{
    char buf[64];
    const char *zone = strchr(s, '%');
    size_t n = zone ? (size_t)(zone - s) : strlen(s);
    struct in6_addr a;

    if (n >= sizeof(buf) || (zone && !label_ok(zone + 1, 15, '.')))
        return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return inet_pton(AF_INET6, buf, &a) == 1;
}

int ff_address_ok(const char *s)
{
    struct in_addr a4;
    size_t n = strlen(s);
    char buf[FF_ADDR_MAX];

    if (n >= 2 && s[0] == '[' && s[n - 1] == ']' && n - 2 < sizeof(buf)) {
        memcpy(buf, s + 1, n - 2);
        buf[n - 2] = '\0';
        return ipv6_ok(buf);
    }
    if (strchr(s, ':'))
        return ipv6_ok(s);
    if (isdigit((unsigned char)s[n ? n - 1 : 0]) && strspn(s, "0123456789.") == n)
        return inet_pton(AF_INET, s, &a4) == 1;
    return hostname_ok(s);
}

/* --- Conversion ------------------------------------------------------------ */

/* txt, an address as written, into h->address without IPv6 brackets. */
static int conv_address(struct ff_cv *c, const char *field, const char *txt, struct ff_host *h)
{
    size_t n = strlen(txt);

    if (!ff_address_ok(txt))
        return FAIL(c, "key '%s': address \"%s\" is not %s", ff_key(c, field), txt,
                    FF_HINT_ADDRESS);
    if (txt[0] == '[')
        snprintf(h->address, sizeof(h->address), "%.*s", (int)(n - 2), txt + 1);
    else
        snprintf(h->address, sizeof(h->address), "%s", txt);
    return 0;
}

static int conv_user(struct ff_cv *c, const char *field, const char *txt, size_t n,
                     struct ff_host *h)
{
    snprintf(h->user, sizeof(h->user), "%.*s", (int)(n < FF_NAME_MAX ? n : FF_NAME_MAX - 1), txt);
    if (n < FF_NAME_MAX && user_ok(h->user))
        return 0;
    return FAIL(c, "key '%s': user \"%.*s\" is not a login name (%s)", ff_key(c, field), (int)n,
                txt, FF_HINT_USER);
}

/* ssh: [USER@]ADDRESS, or address and user. */
static int conv_ssh(struct ff_cv *c, const struct raw_host *r, struct ff_host *h)
{
    const char *at;

    h->kind = FF_HOST_SSH;
    if (r->address) {
        if (r->user && conv_user(c, "user", r->user, strlen(r->user), h))
            return -EINVAL;
        return conv_address(c, "address", r->address, h);
    }
    at = strchr(r->ssh, '@');
    if (at && conv_user(c, "ssh", r->ssh, (size_t)(at - r->ssh), h))
        return -EINVAL;
    return conv_address(c, "ssh", at ? at + 1 : r->ssh, h);
}

/* Which of ssh (or address), netns and local: true r gives; exactly one. */
static int host_kind(struct ff_cv *c, const struct raw_host *r, const char *name, int local)
{
    const char *given[3];
    unsigned n = 0;

    if (r->ssh && (r->address || r->user))
        return FAIL(c, "key '%s' cannot be given together with '%s.ssh' (give ssh: USER@ADDRESS, "
                    "or address and user)", ff_key(c, r->address ? "address" : "user"), c->pre);
    if (r->user && !r->address)
        return FAIL(c, "key '%s' needs '%s.address' (the login on that address; or give ssh: "
                    "USER@ADDRESS)", ff_key(c, "user"), c->pre);
    if (r->ssh || r->address)
        given[n++] = r->ssh ? "ssh" : "address";
    if (r->netns)
        given[n++] = "netns";
    if (local)
        given[n++] = "local";
    if (n == 0)
        return FAIL(c, "key '%s': host '%s' has none of ssh, address, netns and local: true (%s)",
                    c->pre, name, FF_HINT_HOST);
    if (n > 1)
        return FAIL(c, "key '%s': host '%s' has both %s and %s (%s)", c->pre, name, given[0],
                    given[1], FF_HINT_HOST);
    return 0;
}

/* Host i; its lcores and eal_args are checked on a scratch process. */
static int conv_host(struct ff_cv *c, const struct raw_host *r, unsigned i, struct ff_host *h)
{
    struct ff_proc scratch = {.n_eal_args = 0};
    int local = 0, rc;

    memset(h, 0, sizeof(*h));
    snprintf(c->pre, sizeof(c->pre), "hosts[%u]", i);
    if ((rc = ff_get_str(c, "name", r->name, h->name, sizeof(h->name))))
        return rc;
    if (!ff_name_ok(h->name))
        return FAIL(c, "key '%s': \"%s\" is not a name (%s)", ff_key(c, "name"), h->name,
                    FF_HINT_NAME);
    if ((rc = ff_get_bool(c, "local", r->local, &local)) || (rc = host_kind(c, r, h->name, local)))
        return rc;
    if (r->ssh || r->address)
        rc = conv_ssh(c, r, h);
    else if (r->netns) {
        h->kind = FF_HOST_NETNS;
        if (!netns_ok(r->netns))
            return FAIL(c, "key '%s': \"%s\" is not a namespace name (%s)", ff_key(c, "netns"),
                        r->netns, FF_HINT_NETNS);
        snprintf(h->netns, sizeof(h->netns), "%s", r->netns);
    } else {
        h->kind = FF_HOST_LOCAL;
    }
    rc = rc ? rc : ff_get_str(c, "lcores", r->lcores, scratch.lcores, sizeof(scratch.lcores));
    if (rc == 0 && r->lcores && !ff_lcores_ok(r->lcores))
        rc = FAIL(c, "key '%s': \"%s\" is not %s", ff_key(c, "lcores"), r->lcores,
                  FF_HINT_LCORES);
    rc = rc ? rc : ff_get_args(c, r->eal_args, r->eal_args_count, &scratch);
    return rc;
}

int ff_conv_hosts(struct ff_cv *c, const struct raw_farm *f, struct farm_spec *s)
{
    int rc;

    if (f->hosts_count == 0) {
        s->n_hosts = 1;
        s->host[0] = (struct ff_host){.name = FF_LOCALHOST, .kind = FF_HOST_LOCAL};
        return 0;
    }
    s->n_hosts = f->hosts_count;
    for (unsigned i = 0; i < f->hosts_count; i++)
        if ((rc = conv_host(c, &f->hosts[i], i, &s->host[i])))
            return rc;
    return 0;
}

/* "a, b, c": the names of s's hosts. */
static const char *host_list(const struct farm_spec *s, char *buf, size_t len)
{
    size_t o = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < s->n_hosts && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", s->host[i].name);
    return buf;
}

/* The raw host h's eal_args after those already in p. */
static int host_args(struct ff_cv *c, const struct raw_host *h, unsigned hi, struct ff_proc *p)
{
    for (unsigned k = 0; k < h->eal_args_count; k++) {
        if (p->n_eal_args == FF_MAX_EAL_ARGS)
            return FAIL(c, "key 'hosts[%u].eal_args[%u]': more than %d EAL arguments for "
                        "process '%s' with those of defaults", hi, k, FF_MAX_EAL_ARGS, p->name);
        snprintf(p->eal_args[p->n_eal_args++], FF_STR_MAX, "%s", h->eal_args[k]);
    }
    return 0;
}

int ff_conv_proc_host(struct ff_cv *c, const struct raw_farm *f, const struct farm_spec *s,
                      const char *txt, struct ff_proc *p)
{
    char list[FF_MAX_HOSTS * FF_NAME_MAX];
    unsigned i;

    if (!txt && s->n_hosts > 1)
        return FAIL(c, "key '%s' is required when hosts lists several (process '%s'; hosts: %s)",
                    ff_key(c, "host"), p->name, host_list(s, list, sizeof(list)));
    for (i = 0; txt && i < s->n_hosts && strcmp(s->host[i].name, txt); i++)
        ;
    if (txt && i == s->n_hosts && f->hosts_count)
        return FAIL(c, "key '%s': process '%s' names host \"%s\", which is not in hosts (hosts: "
                    "%s)", ff_key(c, "host"), p->name, txt, host_list(s, list, sizeof(list)));
    if (txt && i == s->n_hosts)
        return FAIL(c, "key '%s': process '%s' names host \"%s\", which is not in hosts (no "
                    "hosts are listed: every process is on the local host '%s')",
                    ff_key(c, "host"), p->name, txt, FF_LOCALHOST);
    p->host = txt ? i : 0;
    if (!f->hosts_count)
        return 0;
    if (f->hosts[p->host].lcores)
        snprintf(p->lcores, sizeof(p->lcores), "%s", f->hosts[p->host].lcores);
    return host_args(c, &f->hosts[p->host], p->host, p);
}

/* --- Checks ---------------------------------------------------------------- */

/* Host i's form: name, kind, address or namespace. */
static int check_host(struct ff_chk *c, unsigned i)
{
    const struct ff_host *h = &c->s->host[i];

    if (!ff_name_ok(h->name))
        return FAIL(c, "key 'hosts[%u].name': \"%s\" is not a name (%s)", i, h->name,
                    FF_HINT_NAME);
    switch (h->kind) {
    case FF_HOST_LOCAL:
        return 0;
    case FF_HOST_SSH:
        if (h->user[0] && !user_ok(h->user))
            return FAIL(c, "key 'hosts[%u].user': \"%s\" is not a login name (%s)", i, h->user,
                        FF_HINT_USER);
        if (!ff_address_ok(h->address) || h->address[0] == '[')
            return FAIL(c, "key 'hosts[%u].address': \"%s\" is not %s", i, h->address,
                        FF_HINT_ADDRESS);
        return 0;
    case FF_HOST_NETNS:
        if (!netns_ok(h->netns))
            return FAIL(c, "key 'hosts[%u].netns': \"%s\" is not a namespace name (%s)", i,
                        h->netns, FF_HINT_NETNS);
        return 0;
    }
    return FAIL(c, "key 'hosts[%u]': kind %d is not local, ssh or netns", i, (int)h->kind);
}

/* Hosts i and j (j < i) are not one machine under two names. */
static int distinct_hosts(struct ff_chk *c, unsigned i, unsigned j)
{
    const struct ff_host *a = &c->s->host[i], *b = &c->s->host[j];

    if (!strcmp(a->name, b->name))
        return FAIL(c, "key 'hosts[%u].name': \"%s\" is already the name of hosts[%u]", i,
                    a->name, j);
    if (a->kind != b->kind)
        return 0;
    if (a->kind == FF_HOST_LOCAL)
        return FAIL(c, "key 'hosts[%u].local': host '%s' is local, and so is '%s' (hosts[%u]); "
                    "this machine is one host", i, a->name, b->name, j);
    if (a->kind == FF_HOST_SSH && !strcmp(a->address, b->address))
        return FAIL(c, "key 'hosts[%u]': host '%s' has address %s, which is already host '%s' "
                    "(hosts[%u])", i, a->name, a->address, b->name, j);
    if (a->kind == FF_HOST_NETNS && !strcmp(a->netns, b->netns))
        return FAIL(c, "key 'hosts[%u].netns': namespace \"%s\" is already host '%s' "
                    "(hosts[%u])", i, a->netns, b->name, j);
    return 0;
}

int ff_check_hosts(const struct farm_spec *s, const char *where, char *err, size_t errlen)
{
    struct ff_chk c = {.s = s, .where = where, .err = err, .errlen = errlen};
    char key[FF_KEY_MAX];
    int rc;

    if (s->n_hosts < 1 || s->n_hosts > FF_MAX_HOSTS)
        return FAIL(&c, "key 'hosts': %u entries (allowed: 1 to %d)", s->n_hosts, FF_MAX_HOSTS);
    for (unsigned i = 0; i < s->n_hosts; i++) {
        if ((rc = check_host(&c, i)))
            return rc;
        for (unsigned j = 0; j < i; j++)
            if ((rc = distinct_hosts(&c, i, j)))
                return rc;
    }
    for (unsigned g = 0; g < ff_n_procs(s); g++) {
        const struct ff_proc *p = ff_proc_at(s, g, key);
        if (p->host >= s->n_hosts)
            return FAIL(&c, "key '%s.host': %u is not a host index (0 to %u)", key, p->host,
                        s->n_hosts - 1);
    }
    return ff_check_claims(s, where, err, errlen);
}

const char *farm_host_kind_name(enum ff_host_kind kind)
{
    return (unsigned)kind < 3 ? kind_names[kind] : "unknown";
}
