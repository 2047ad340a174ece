/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_curve.h - a farm's CURVE keys: make them, load them, secure sockets, the daemons' ZAP handler. */
#ifndef EBF_CURVE_H
#define EBF_CURVE_H

#include <stddef.h>

/*
 * A farm's key directory (made by `ebfarm keygen DIR`, every file 0600):
 *   server.key, server.pub   the daemons' keypair (Z85, 40 characters)
 *   client.key, client.pub   the tools' keypair
 *   clients/NAME.pub         the client public keys a daemon accepts
 * Daemons load server.* and clients/ *.pub; tools load client.* and
 * server.pub. CURVE applies to tcp:// endpoints; ipc:// ones are guarded
 * by the run directory's mode (0700).
 *
 * Threads: keygen and the loaders on any thread; the ZAP handler runs a
 * thread of its own, started and stopped by the daemon's control thread.
 */

#define EBF_KEY_Z85 41               /* 40 characters and NUL */
#define EBF_CURVE_CLIENTS_MAX 64

struct ebf_curve_server {
    char pub[EBF_KEY_Z85], sec[EBF_KEY_Z85];
    unsigned n_clients;
    char client[EBF_CURVE_CLIENTS_MAX][EBF_KEY_Z85];
};

struct ebf_curve_client {
    char server_pub[EBF_KEY_Z85], pub[EBF_KEY_Z85], sec[EBF_KEY_Z85];
};

/* 1 when libzmq has CURVE; else 0 with err saying so. */
int ebf_curve_available(char *err, size_t len);

/* 1 when ep is a tcp:// endpoint (CURVE applies). */
int ebf_curve_applies(const char *ep);

/* Make dir (0700, it may exist) and the keypairs in it, refusing to replace
 * any existing key file. 0, or -1 with err naming the path and the cause. */
int ebf_curve_keygen(const char *dir, char *err, size_t len);

/* The daemon's keys from dir; at least one client key. 0 or -1 with err. */
int ebf_curve_server_load(const char *dir, struct ebf_curve_server *k, char *err, size_t len);
/* The tools' keys from dir. 0 or -1 with err. */
int ebf_curve_client_load(const char *dir, struct ebf_curve_client *k, char *err, size_t len);

/* Make socket s a CURVE server (with the ZAP domain "ebfarm") or a client
 * that checks the server's key. 0, or -1 with errno set. */
int ebf_curve_server_socket(void *s, const struct ebf_curve_server *k);
int ebf_curve_client_socket(void *s, const struct ebf_curve_client *k);

/* The ZAP handler of context zctx: accepts CURVE clients whose public key is
 * one of k's clients (compared in constant time), refuses every other.
 * Start it before binding the server sockets; stop it before closing the
 * context. NULL with err on failure. */
struct ebf_zap;
struct ebf_zap *ebf_zap_start(void *zctx, const struct ebf_curve_server *k, char *err,
                              size_t len);
/* The number of connections refused so far. */
unsigned long ebf_zap_refused(const struct ebf_zap *z);
void ebf_zap_stop(struct ebf_zap *z);

#endif /* EBF_CURVE_H */
