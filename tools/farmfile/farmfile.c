/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile.c - load a farm file: libcyaml's raw structs converted and checked into a farm_spec. */
#include "farmfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "ebf_release.h"
#include "farmfile_check.h"
#include "farmfile_memory.h"
#include "farmfile_hosts.h"
#include "farmfile_schema.h"
#include "farmfile_value.h"
#include "farmfile_yaml.h"

/* d's default into dst (d's type), where the table has one. */
#define FF_DEFAULT(id, dst) ((void)ebf_param_default(EBF_PARAM(id), (dst)))

void ff_run_default(struct ff_run *run)
{
    *run = (struct ff_run){.events = FF_RUN_EVENTS, .trigger_us = FF_RUN_TRIGGER_US,
                           .frag_dist = FF_DIST_FIXED, .encap = FF_ENCAP_ETH,
                           .silence_source = FF_NO_SILENCE, .store = {.fsync = "close"}};
    FF_DEFAULT(SOURCES, &run->sources);
    FF_DEFAULT(RATE, &run->rate);
    FF_DEFAULT(DURATION, &run->duration_s);
    FF_DEFAULT(FRAG_MIN, &run->frag_min);
    FF_DEFAULT(FRAG_MAX, &run->frag_max);
    FF_DEFAULT(UDP_PORT, &run->udp_port);
    FF_DEFAULT(MTU, &run->mtu);
    FF_DEFAULT(SEED, &run->seed);
    FF_DEFAULT(ACCEPT, &run->accept);
    FF_DEFAULT(ACCEPT_SEED, &run->accept_seed);
    FF_DEFAULT(TIMEOUT_MS, &run->timeout_ms);
    FF_DEFAULT(METRICS_PERIOD_MS, &run->metrics_period_ms);
    FF_DEFAULT(FAULT_SEED, &run->fault_seed);
    FF_DEFAULT(BURST_EVENTS, &run->burst_events);
    FF_DEFAULT(BURST_GAP_US, &run->burst_gap_us);
    FF_DEFAULT(STORE_MAX_FILE_MB, &run->store.max_file_mb);
    FF_DEFAULT(STORE_MAX_FILE_S, &run->store.max_file_s);
    FF_DEFAULT(STORE_BUFFER_MB, &run->store.buffer_mb);
    FF_DEFAULT(STORE_MAX_MBS, &run->store.max_mbs);
}

void ff_sfc_default(struct ff_sfc *sfc)
{
    memset(sfc, 0, sizeof(*sfc));
    FF_DEFAULT(SFC_ID, &sfc->id);
    FF_DEFAULT(CAPACITY, &sfc->capacity);
    FF_DEFAULT(MBUFS, &sfc->mbufs);
    FF_DEFAULT(MAX_CREDITS, &sfc->max_credits);
    FF_DEFAULT(WORKERS, &sfc->workers);
}

void ff_node_default(struct ff_node *n)
{
    memset(n, 0, sizeof(*n));
    FF_DEFAULT(CREDITS, &n->credits);
    FF_DEFAULT(WORKERS, &n->workers);
}

/* The defaults of a spec before a file is applied: the demo's run
 * parameters, no processes. */
static void spec_default(struct farm_spec *s)
{
    memset(s, 0, sizeof(*s));
    ff_run_default(&s->run);
}

/* --- Sections -------------------------------------------------------------- */

static int conv_defaults(struct ff_cv *c, const struct raw_defaults *d, struct ff_proc *p,
                         struct ff_run *run)
{
    int rc = 0;

    if (!d)
        return 0;
    snprintf(c->pre, sizeof(c->pre), "defaults");
    if (d->idle)
        p->idle = (enum ff_idle)*d->idle;
    rc = rc ? rc : ff_get_bool(c, "no_huge", d->no_huge, &p->no_huge);
    rc = rc ? rc : ff_get_u32(c, "memory_mb", d->memory_mb, FF_MEMORY_MB_MIN, FF_MEMORY_MB_MAX,
                           &p->memory_mb);
    rc = rc ? rc : ff_get_str(c, "lcores", d->lcores, p->lcores, sizeof(p->lcores));
    rc = rc ? rc : ff_get_bool(c, "telemetry", d->telemetry, &p->telemetry);
    if (rc == 0 && !ff_lcores_ok(p->lcores))
        rc = FAIL(c, "key 'defaults.lcores': \"%s\" is not %s", p->lcores, FF_HINT_LCORES);
    rc = rc ? rc : ff_get_args(c, d->eal_args, d->eal_args_count, p);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(METRICS_PERIOD_MS), d->metrics_period_ms,
                                &run->metrics_period_ms);
    return rc;
}

/* Fragment sizes: frag_size, or frag_min and frag_max, and their
 * distribution. Log-normal sizes are clamped to [frag_min, frag_max], by
 * default from 1 to what an event can carry (conv_run), as the readout's
 * options have it. */
static int conv_frag(struct ff_cv *c, const struct raw_run *r, struct ff_run *run)
{
    const char *alone = "give frag_size alone, or frag_min and frag_max";
    char why[160];
    int lognormal = r->frag_dist && *r->frag_dist == FF_DIST_LOGNORMAL;
    int rc = 0;

    if (r->frag_size && (r->frag_min || r->frag_max))
        return FAIL(c, "key 'run.frag_size' cannot be given together with 'run.%s' (%s)",
                    r->frag_min ? "frag_min" : "frag_max", alone);
    if (!r->frag_min != !r->frag_max)
        return FAIL(c, "key 'run.%s' is required with 'run.%s' (%s)",
                    r->frag_min ? "frag_max" : "frag_min", r->frag_min ? "frag_min" : "frag_max",
                    alone);
    if (lognormal && r->frag_size)
        return FAIL(c, "key 'run.frag_size' cannot be given with 'run.frag_dist' lognormal (its "
                    "sizes are clamped to [frag_min, frag_max], by default from %u to what an "
                    "event of run.sources fragments can carry)",
                    (unsigned)EBF_PARAM(FRAG_MIN)->min);
    if (!lognormal && (r->frag_mean || r->frag_sigma))
        return FAIL(c, "key 'run.%s' is only allowed with 'run.frag_dist' lognormal",
                    r->frag_mean ? "frag_mean" : "frag_sigma");
    if (lognormal && (!r->frag_mean || !r->frag_sigma))
        return FAIL(c, "key 'run.%s' is required with 'run.frag_dist' lognormal (give frag_mean "
                    "and frag_sigma, in bytes)", r->frag_mean ? "frag_sigma" : "frag_mean");
    if (lognormal) {
        run->frag_min = (uint32_t)EBF_PARAM(FRAG_MIN)->min;
        run->frag_max = (uint32_t)EBF_PARAM(FRAG_MAX)->max;
    }
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(FRAG_SIZE), r->frag_size, &run->frag_min);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(FRAG_SIZE), r->frag_size, &run->frag_max);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(FRAG_MIN), r->frag_min, &run->frag_min);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(FRAG_MAX), r->frag_max, &run->frag_max);
    if (rc == 0 && ebf_param_check_frag_range(FF_RUN_NAMES, run->frag_min, run->frag_max, why,
                                              sizeof(why)))
        rc = FAIL(c, "%s", why);
    run->frag_dist = r->frag_dist ? (enum ff_frag_dist)*r->frag_dist
                     : run->frag_min == run->frag_max ? FF_DIST_FIXED : FF_DIST_UNIFORM;
    if (r->payload)
        run->payload = (enum ff_payload)*r->payload;
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(FRAG_MEAN), r->frag_mean, &run->frag_mean);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(FRAG_SIGMA), r->frag_sigma, &run->frag_sigma);
    return rc;
}

/* The readouts' fault injection; the spec and the silence are checked
 * with the readout's own parsers (farm_spec_check does it again). */
static int conv_faults(struct ff_cv *c, const struct raw_run *r, struct ff_run *run)
{
    char why[160];
    int rc = 0;

    rc = rc ? rc : ff_get_faults(c, "faults", r->faults, run->faults, sizeof(run->faults));
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(FAULT_SEED), r->fault_seed, &run->fault_seed);
    rc = rc ? rc : ff_get_silence(c, "silence", r->silence, &run->silence_source,
                                  &run->silence_event);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(BURST_EVENTS), r->burst_events,
                                &run->burst_events);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(BURST_GAP_US), r->burst_gap_us,
                                &run->burst_gap_us);
    /* Also "burst_gap_us: 0" alone: the readout refuses a gap without bursts. */
    if (rc == 0 && ebf_param_check_burst_gap(FF_RUN_NAMES, r->burst_gap_us != NULL,
                                             run->burst_events, why, sizeof(why)))
        rc = FAIL(c, "%s", why);
    return rc;
}

/* run.trigger: the plug-in's path, its KEY=VALUE parameters, the time a
 * decide may take. */
static int conv_trigger(struct ff_cv *c, const struct raw_trigger *r, struct ff_trigger *t)
{
    int rc = 0;
    char key[32];

    if (!r)
        return 0;
    snprintf(c->pre, sizeof(c->pre), "run.trigger");
    rc = rc ? rc : ff_get_str(c, "plugin", r->plugin, t->plugin, sizeof(t->plugin));
    for (unsigned i = 0; rc == 0 && i < r->params_count; i++) {
        snprintf(key, sizeof(key), "params[%u]", i);
        rc = ff_get_str(c, key, r->params[i], t->param[i], sizeof(t->param[i]));
    }
    t->n_params = rc ? 0 : r->params_count;
    rc = rc ? rc : ff_get_dbl(c, "timeout_ms", r->timeout_ms, 0, FF_TRIGGER_TIMEOUT_MS_MAX,
                              &t->timeout_ms);
    snprintf(c->pre, sizeof(c->pre), "run");
    return rc;
}

/* run.store: the nodes' storage directory, file limits and fsync policy
 * (ranges of the node's options, lib/ebf_param.h). */
static int conv_store(struct ff_cv *c, const struct raw_store *r, struct ff_store *s)
{
    const struct ebf_param_def *mb = EBF_PARAM(STORE_MAX_FILE_MB);
    const struct ebf_param_def *sec = EBF_PARAM(STORE_MAX_FILE_S);
    const struct ebf_param_def *buf = EBF_PARAM(STORE_BUFFER_MB), *mbs = EBF_PARAM(STORE_MAX_MBS);
    int rc = 0;

    if (!r)
        return 0;
    snprintf(c->pre, sizeof(c->pre), "run.store");
    rc = rc ? rc : ff_get_str(c, "dir", r->dir, s->dir, sizeof(s->dir));
    rc = rc ? rc : ff_get_u32(c, "max_file_mb", r->max_file_mb, (uint32_t)mb->min,
                              (uint32_t)mb->max, &s->max_file_mb);
    rc = rc ? rc : ff_get_dbl(c, "max_file_s", r->max_file_s, sec->dmin, sec->dmax,
                              &s->max_file_s);
    rc = rc ? rc : ff_get_str(c, "fsync", r->fsync, s->fsync, sizeof(s->fsync));
    rc = rc ? rc : ff_get_u32(c, "buffer_mb", r->buffer_mb, (uint32_t)buf->min,
                              (uint32_t)buf->max, &s->buffer_mb);
    rc = rc ? rc : ff_get_dbl(c, "max_mbs", r->max_mbs, mbs->dmin, mbs->dmax, &s->max_mbs);
    snprintf(c->pre, sizeof(c->pre), "run");
    return rc;
}

static int conv_run(struct ff_cv *c, const struct raw_run *r, struct ff_run *run)
{
    int rc = 0;

    if (!r)
        return 0;
    snprintf(c->pre, sizeof(c->pre), "run");
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(SOURCES), r->sources, &run->sources);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(EVENTS), r->events, &run->events);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(RATE), r->rate, &run->rate);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(DURATION), r->duration_s, &run->duration_s);
    rc = rc ? rc : conv_frag(c, r, run);
    if (rc == 0 && r->encap)
        run->encap = (enum ff_encap)*r->encap;
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(UDP_PORT), r->udp_port, &run->udp_port);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(MTU), r->mtu, &run->mtu);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(SEED), r->seed, &run->seed);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(TRIGGER_US), r->trigger_us, &run->trigger_us);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(ACCEPT), r->accept, &run->accept);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(ACCEPT_SEED), r->accept_seed, &run->accept_seed);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(TIMEOUT_MS), r->timeout_ms, &run->timeout_ms);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(MAX_EVENT), r->max_event, &run->max_event);
    rc = rc ? rc : conv_faults(c, r, run);
    /* Failover (docs/architecture.md, "Builders fail over"): each readout's
     * replay buffer, and the SFCs' release frames (farm_argv.c). */
    rc = rc ? rc : ff_get_u32(c, "replay_mb", r->replay_mb, 0, 65536, &run->replay_mb);
    rc = rc ? rc : ff_get_u32(c, "sfc_dead_ms", r->sfc_dead_ms, EBF_RELEASE_DEAD_MIN_MS,
                              EBF_RELEASE_DEAD_MAX_MS, &run->sfc_dead_ms);
    /* Log-normal sizes without frag_min and frag_max: clamped to what an
     * event of run.sources fragments can carry at run.mtu. */
    if (rc == 0 && run->frag_dist == FF_DIST_LOGNORMAL && !r->frag_min && !r->frag_max)
        run->frag_max = ebf_frag_fit(run->sources, ff_encap(run->encap), run->mtu);
    rc = rc ? rc : conv_trigger(c, r->trigger, &run->trigger);
    rc = rc ? rc : conv_store(c, r->store, &run->store);
    return rc;
}

/* The keys every process has, over its host's defaults over those in def
 * (hosts already in s); c->pre is set. */
static int conv_proc(struct ff_cv *c, const struct raw_farm *f, const struct raw_proc *r,
                     const struct farm_spec *s, const struct ff_proc *def, struct ff_proc *p)
{
    int rc = 0;

    *p = *def;
    rc = rc ? rc : ff_get_str(c, "name", r->name, p->name, sizeof(p->name));
    rc = rc ? rc : ff_conv_proc_host(c, f, s, r->host, p);
    snprintf(p->control, sizeof(p->control), "ipc://{run}/%s.ctl", p->name);
    snprintf(p->metrics, sizeof(p->metrics), "ipc://{run}/%s.pub", p->name);
    rc = rc ? rc : ff_get_str(c, "control", r->control, p->control, sizeof(p->control));
    rc = rc ? rc : ff_get_str(c, "metrics", r->metrics, p->metrics, sizeof(p->metrics));
    rc = rc ? rc : ff_get_str(c, "lcores", r->lcores, p->lcores, sizeof(p->lcores));
    rc = rc ? rc : ff_get_u32(c, "memory_mb", r->memory_mb, FF_MEMORY_MB_MIN, FF_MEMORY_MB_MAX,
                           &p->memory_mb);
    rc = rc ? rc : ff_get_bool(c, "telemetry", r->telemetry, &p->telemetry);
    if (rc == 0 && r->idle)
        p->idle = (enum ff_idle)*r->idle;
    rc = rc ? rc : ff_get_args(c, r->eal_args, r->eal_args_count, p);
    return rc;
}

/* The index of the SFC named name in the file, or -1 with a message. */
static int sfc_ref(struct ff_cv *c, const char *field, const char *name, const struct raw_farm *f)
{
    char list[FF_MAX_SFCS * FF_NAME_MAX] = "";
    size_t o = 0;

    for (unsigned j = 0; j < f->sfcs_count; j++)
        if (!strcmp(f->sfcs[j].name, name))
            return (int)j;
    for (unsigned j = 0; j < f->sfcs_count && o < sizeof(list); j++)
        o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", j ? ", " : "", f->sfcs[j].name);
    FAIL(c, "key '%s': \"%s\" is not an SFC (SFCs: %s)", ff_key(c, field), name, list);
    return -1;
}

static int conv_readout(struct ff_cv *c, const struct raw_farm *f, unsigned i,
                        const struct ff_proc *def, struct farm_spec *s)
{
    const struct raw_proc *r = &f->readouts[i];
    struct ff_readout *ro = &s->readout[i];
    char field[32];
    int rc;

    snprintf(c->pre, sizeof(c->pre), "readouts[%u]", i);
    if ((rc = conv_proc(c, f, r, s, def, &ro->p)) || (rc = ff_get_port(c, "port", r->port, &ro->port)) ||
        (rc = ff_get_mac(c, "mac", r->mac, ro->mac)))
        return rc;
    ro->n_sfcs = r->sfcs_count;
    for (unsigned k = 0; k < r->sfcs_count; k++) {
        int j;
        snprintf(field, sizeof(field), "sfcs[%u]", k);
        if ((j = sfc_ref(c, field, r->sfcs[k], f)) < 0)
            return -EINVAL;
        ro->sfc[k] = (unsigned)j;
    }
    return 0;
}

static int conv_sfc(struct ff_cv *c, const struct raw_farm *f, unsigned i,
                    const struct ff_proc *def, struct farm_spec *s)
{
    const struct raw_proc *r = &f->sfcs[i];
    struct ff_sfc *sfc = &s->sfc[i];
    int rc = 0;

    snprintf(c->pre, sizeof(c->pre), "sfcs[%u]", i);
    ff_sfc_default(sfc);
    sfc->id = (uint16_t)i;
    rc = rc ? rc : conv_proc(c, f, r, s, def, &sfc->p);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(SFC_ID), r->id, &sfc->id);
    rc = rc ? rc : ff_get_port(c, "port", r->port, &sfc->port);
    rc = rc ? rc : ff_get_mac(c, "mac", r->mac, sfc->mac);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(CAPACITY), r->capacity, &sfc->capacity);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(MBUFS), r->mbufs, &sfc->mbufs);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(MAX_CREDITS), r->max_credits, &sfc->max_credits);
    rc = rc ? rc : ff_get_bool(c, "accept_any_readout", r->accept_any_readout,
                               &sfc->accept_any_readout);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(WORKERS), r->workers, &sfc->workers);
    return rc;
}

/* After the SFCs: a node's sfc_mac defaults to its SFC's mac. */
static int conv_node(struct ff_cv *c, const struct raw_farm *f, unsigned i,
                     const struct ff_proc *def, struct farm_spec *s)
{
    const struct raw_proc *r = &f->nodes[i];
    struct ff_node *n = &s->node[i];
    int rc, j;

    snprintf(c->pre, sizeof(c->pre), "nodes[%u]", i);
    ff_node_default(n);
    if ((rc = conv_proc(c, f, r, s, def, &n->p)))
        return rc;
    if ((j = sfc_ref(c, "sfc", r->sfc, f)) < 0)
        return -EINVAL;
    n->sfc = (unsigned)j;
    if ((rc = ff_get_port(c, "port", r->port, &n->port)) ||
        (rc = ff_get_mac(c, "mac", r->mac, n->mac)))
        return rc;
    n->sfc_port = n->port;
    if (!r->sfc_port && n->port.kind != FF_PORT_MEMIF)
        return FAIL(c, "key '%s' is required when port is not a memif link (the SFC's port "
                    "toward this node: %s)", ff_key(c, "sfc_port"), FF_HINT_PORT);
    memcpy(n->sfc_mac, s->sfc[j].mac, 6);
    rc = rc ? rc : ff_get_port(c, "sfc_port", r->sfc_port, &n->sfc_port);
    rc = rc ? rc : ff_get_mac(c, "sfc_mac", r->sfc_mac, n->sfc_mac);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(CREDITS), r->credits, &n->credits);
    rc = rc ? rc : ff_get_param(c, EBF_PARAM(WORKERS), r->workers, &n->workers);
    return rc;
}

/* The sim: section as written (ebfarm sim checks the values). */
static int conv_sim(struct ff_cv *c, const struct raw_sim *r, struct ff_sim *s)
{
    int rc = 0;

    if (!r)
        return 0;
    s->present = 1;
    snprintf(c->pre, sizeof(c->pre), "sim");
#define FF_SIM_CONV(k) rc = rc ? rc : ff_get_str(c, #k, r->k, s->k, sizeof(s->k));
    FF_SIM_KEYS(FF_SIM_CONV)
#undef FF_SIM_CONV
    s->n_faults = r->faults_count;
    for (unsigned i = 0; i < r->faults_count && rc == 0; i++)
        rc = ff_get_str(c, "faults", r->faults[i], s->fault[i], sizeof(s->fault[i]));
    return rc;
}

/* Everything the raw file holds into s, in file order. */
static int convert(struct ff_cv *c, const struct raw_farm *f, struct farm_spec *s)
{
    struct ff_proc def = {.lcores = "auto", .memory_mb = 256, .no_huge = 1, .telemetry = 1,
                          .idle = FF_IDLE_SPIN};
    int rc;

    spec_default(s);
    if ((rc = ff_get_str(c, "farm", f->farm, s->name, sizeof(s->name))) ||
        (rc = ff_get_str(c, "keys", f->keys, s->keys, sizeof(s->keys))) ||
        (rc = ff_get_bool(c, "insecure", f->insecure, &s->insecure)) ||
        (rc = conv_defaults(c, f->defaults, &def, &s->run)) || (rc = conv_run(c, f->run, &s->run)) ||
        (rc = conv_sim(c, f->sim, &s->sim)))
        return rc;
    if ((rc = ff_conv_hosts(c, f, s)))
        return rc;
    s->n_readouts = f->readouts_count;
    s->n_sfcs = f->sfcs_count;
    s->n_nodes = f->nodes_count;
    for (unsigned i = 0; i < f->readouts_count; i++)
        if ((rc = conv_readout(c, f, i, &def, s)))
            return rc;
    for (unsigned i = 0; i < f->sfcs_count; i++)
        if ((rc = conv_sfc(c, f, i, &def, s)))
            return rc;
    for (unsigned i = 0; i < f->nodes_count; i++)
        if ((rc = conv_node(c, f, i, &def, s)))
            return rc;
    return 0;
}

/* --- Entry points ---------------------------------------------------------- */

/* The SHA-256 of the len bytes at data, as lower-case hex, into hex. No
 * sodium_init(): SHA-256 needs none, and it would open /dev/urandom. */
static void sha256_hex(const char *data, size_t len, char hex[65])
{
    unsigned char md[crypto_hash_sha256_BYTES];

    crypto_hash_sha256(md, (const unsigned char *)data, len);
    sodium_bin2hex(hex, 65, md, sizeof(md));
}

int farm_spec_parse(const char *yaml, size_t len, const char *name_for_errors,
                    struct farm_spec *spec, char *err, size_t errlen)
{
    char where[FF_STR_MAX + 16];
    struct ff_log log = {.msg = ""};
    const cyaml_config_t cfg = {
        .log_fn = ff_log_fn,
        .log_ctx = &log,
        .mem_fn = cyaml_mem,
        .log_level = CYAML_LOG_ERROR,
        .flags = CYAML_CFG_DEFAULT,  /* unknown keys are errors */
    };
    struct raw_farm *raw = NULL;
    struct ff_cv c = {.where = where, .err = err, .errlen = errlen};
    cyaml_err_t e;
    int rc;

    snprintf(where, sizeof(where), "farm file '%s'", name_for_errors);
    if ((rc = ff_yaml_syntax(yaml, len, where, err, errlen)))
        return rc;
    e = cyaml_load_data((const uint8_t *)yaml, len, &cfg, &ff_farm_schema, (cyaml_data_t **)&raw,
                        NULL);
    if (e != CYAML_OK)
        return ff_cyaml_error(&log, e, &ff_farm_schema, where, err, errlen);
    if (!raw)
        return ff_fail(err, errlen, where, "the file is empty (a farm file needs the keys farm, "
                       "readouts, sfcs and nodes)");
    rc = convert(&c, raw, spec);
    cyaml_free(&cfg, &ff_farm_schema, raw, 0);
    if (rc == 0)
        sha256_hex(yaml, len, spec->file_sha256);
    return rc ? rc : ff_check(spec, where, err, errlen);
}

/* A relative 'keys' directory is taken from the farm file's directory, and
 * made absolute when it exists (the daemons run elsewhere). */
static int keys_beside(const char *path, struct farm_spec *spec, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    char full[FF_STR_MAX], *abs;

    if (!spec->keys[0] || spec->keys[0] == '/')
        return 0;
    if (snprintf(full, sizeof(full), "%.*s/%s", slash ? (int)(slash - path) : 1,
                 slash ? path : ".", spec->keys) >= (int)sizeof(full)) {
        snprintf(err, errlen, "farm file '%s': key 'keys': \"%s\" beside the file is longer "
                 "than %d characters", path, spec->keys, FF_STR_MAX - 1);
        return -ENAMETOOLONG;
    }
    abs = realpath(full, NULL);
    if (abs && strlen(abs) < sizeof(full))
        snprintf(full, sizeof(full), "%s", abs);
    free(abs);
    memcpy(spec->keys, full, sizeof(full));
    return 0;
}

int farm_spec_load(const char *path, struct farm_spec *spec, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long len;
    int rc;

    if (!f) {
        rc = -errno;
        snprintf(err, errlen, "farm file '%s': cannot open it: %s", path, strerror(-rc));
        return rc;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "farm file '%s': cannot read it: %s", path, strerror(-rc));
        fclose(f);
        return rc;
    }
    if (len > FF_FILE_MAX) {     /* not read at all */
        fclose(f);
        snprintf(err, errlen, "farm file '%s': %ld bytes is too big (at most %d)", path, len,
                 FF_FILE_MAX);
        return -EFBIG;
    }
    buf = malloc((size_t)len + 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        rc = buf ? -EIO : -ENOMEM;
        snprintf(err, errlen, "farm file '%s': cannot read it: %s", path, strerror(-rc));
    } else {
        rc = farm_spec_parse(buf, (size_t)len, path, spec, err, errlen);
    }
    if (rc == 0)
        rc = keys_beside(path, spec, err, errlen);
    free(buf);
    fclose(f);
    return rc;
}

int farm_spec_check_run(const struct farm_spec *spec, char *err, size_t errlen)
{
    char where[FF_NAME_MAX + 16];

    snprintf(where, sizeof(where), "farm '%s'", spec->name);
    return ff_check_memory(spec, where, err, errlen);
}

int farm_spec_check(const struct farm_spec *spec, char *err, size_t errlen)
{
    char where[FF_NAME_MAX + 16];

    snprintf(where, sizeof(where), "farm '%s'", spec->name);
    return ff_check(spec, where, err, errlen);
}
