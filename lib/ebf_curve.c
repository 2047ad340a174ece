/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_curve.c - a farm's CURVE keys: make them, load them, secure sockets, the daemons' ZAP handler. */
#include "ebf_curve.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zmq.h>

#define ZAP_EP "inproc://zeromq.zap.01"
#define ZAP_DOMAIN "ebfarm"

int ebf_curve_available(char *err, size_t len)
{
    if (zmq_has("curve"))
        return 1;
    snprintf(err, len, "this libzmq has no CURVE security (built without libsodium): "
                       "tcp:// endpoints need it");
    return 0;
}

int ebf_curve_applies(const char *ep)
{
    return ep && !strncmp(ep, "tcp://", 6);
}

/* Write the key text to dir/name, mode 0600, never over an existing file. */
static int write_key(const char *dir, const char *name, const char *key, char *err, size_t len)
{
    char path[4096];
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, len, "cannot create '%s': %s", path, strerror(errno));
        return -1;
    }
    size_t n = strlen(key);
    int ok = write(fd, key, n) == (ssize_t)n && write(fd, "\n", 1) == 1;
    int e = errno;
    if (close(fd) != 0 || !ok) {
        snprintf(err, len, "cannot write '%s': %s", path, strerror(ok ? errno : e));
        return -1;
    }
    return 0;
}

/* Make dir with mode 0700 unless it exists as a directory. */
static int make_dir(const char *dir, char *err, size_t len)
{
    struct stat sb;

    if (mkdir(dir, 0700) == 0)
        return 0;
    if (errno == EEXIST && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
        return 0;
    snprintf(err, len, "cannot make the key directory '%s': %s", dir,
             errno == EEXIST ? "it exists and is not a directory" : strerror(errno));
    return -1;
}

int ebf_curve_keygen(const char *dir, char *err, size_t len)
{
    char spub[EBF_KEY_Z85], ssec[EBF_KEY_Z85], cpub[EBF_KEY_Z85], csec[EBF_KEY_Z85];
    char sub[4096];

    if (!ebf_curve_available(err, len))
        return -1;
    snprintf(sub, sizeof(sub), "%s/clients", dir);
    if (make_dir(dir, err, len) || make_dir(sub, err, len))
        return -1;
    if (zmq_curve_keypair(spub, ssec) != 0 || zmq_curve_keypair(cpub, csec) != 0) {
        snprintf(err, len, "cannot make a CURVE keypair: %s", zmq_strerror(errno));
        return -1;
    }
    const struct {
        const char *dir, *name, *key;
    } files[] = {
        {dir, "server.key", ssec}, {dir, "server.pub", spub}, {dir, "client.key", csec},
        {dir, "client.pub", cpub}, {sub, "client.pub", cpub},
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        if (write_key(files[i].dir, files[i].name, files[i].key, err, len))
            return -1;
    return 0;
}

/* A Z85 key from the file at path: 40 characters, an optional newline. */
static int read_key(const char *path, char key[EBF_KEY_Z85], char *err, size_t len)
{
    char buf[64];
    uint8_t bin[32];
    FILE *f = fopen(path, "re");

    if (!f) {
        snprintf(err, len, "cannot read the key '%s': %s", path, strerror(errno));
        return -1;
    }
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (n > 0 && buf[n - 1] == '\n')
        buf[--n] = '\0';
    if (n != EBF_KEY_Z85 - 1 || !zmq_z85_decode(bin, buf)) {
        snprintf(err, len, "'%s' is not a CURVE key (40 Z85 characters; ebfarm keygen makes them)",
                 path);
        return -1;
    }
    memcpy(key, buf, EBF_KEY_Z85);
    return 0;
}

/* Every dir/clients/ *.pub into k's client list. */
static int read_clients(const char *dir, struct ebf_curve_server *k, char *err, size_t len)
{
    char sub[4096], path[4400];
    struct dirent *de;
    DIR *d;
    int rc = 0;

    snprintf(sub, sizeof(sub), "%s/clients", dir);
    if (!(d = opendir(sub))) {
        snprintf(err, len, "cannot read the client keys in '%s': %s", sub, strerror(errno));
        return -1;
    }
    while (rc == 0 && (de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n < 5 || strcmp(de->d_name + n - 4, ".pub") != 0)
            continue;
        if (k->n_clients == EBF_CURVE_CLIENTS_MAX) {
            snprintf(err, len, "'%s' holds more than %d client keys", sub, EBF_CURVE_CLIENTS_MAX);
            rc = -1;
            break;
        }
        snprintf(path, sizeof(path), "%s/%s", sub, de->d_name);
        rc = read_key(path, k->client[k->n_clients++], err, len);
    }
    closedir(d);
    if (rc == 0 && k->n_clients == 0) {
        snprintf(err, len, "'%s' holds no client key (NAME.pub): no tool could connect", sub);
        rc = -1;
    }
    return rc;
}

int ebf_curve_server_load(const char *dir, struct ebf_curve_server *k, char *err, size_t len)
{
    char path[4096];

    memset(k, 0, sizeof(*k));
    if (!ebf_curve_available(err, len))
        return -1;
    snprintf(path, sizeof(path), "%s/server.key", dir);
    if (read_key(path, k->sec, err, len))
        return -1;
    snprintf(path, sizeof(path), "%s/server.pub", dir);
    if (read_key(path, k->pub, err, len))
        return -1;
    return read_clients(dir, k, err, len);
}

int ebf_curve_client_load(const char *dir, struct ebf_curve_client *k, char *err, size_t len)
{
    char path[4096];

    memset(k, 0, sizeof(*k));
    if (!ebf_curve_available(err, len))
        return -1;
    snprintf(path, sizeof(path), "%s/server.pub", dir);
    if (read_key(path, k->server_pub, err, len))
        return -1;
    snprintf(path, sizeof(path), "%s/client.key", dir);
    if (read_key(path, k->sec, err, len))
        return -1;
    snprintf(path, sizeof(path), "%s/client.pub", dir);
    return read_key(path, k->pub, err, len);
}

int ebf_curve_server_socket(void *s, const struct ebf_curve_server *k)
{
    int one = 1;

    if (zmq_setsockopt(s, ZMQ_ZAP_DOMAIN, ZAP_DOMAIN, strlen(ZAP_DOMAIN)) != 0 ||
        zmq_setsockopt(s, ZMQ_CURVE_SERVER, &one, sizeof(one)) != 0 ||
        zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, k->sec, EBF_KEY_Z85 - 1) != 0)
        return -1;
    return 0;
}

int ebf_curve_client_socket(void *s, const struct ebf_curve_client *k)
{
    if (zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, k->server_pub, EBF_KEY_Z85 - 1) != 0 ||
        zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, k->pub, EBF_KEY_Z85 - 1) != 0 ||
        zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, k->sec, EBF_KEY_Z85 - 1) != 0)
        return -1;
    return 0;
}

/* --- The ZAP handler ------------------------------------------------------ */

#define ZAP_FRAMES 8

struct ebf_zap {
    void *sock;
    pthread_t thread;
    int stop;                    /* set by ebf_zap_stop */
    unsigned long refused;
    unsigned n;
    uint8_t key[EBF_CURVE_CLIENTS_MAX][32];
};

/* 1 when pub (32 bytes) is an authorised key; every key is compared in full. */
static int authorised(const struct ebf_zap *z, const uint8_t *pub)
{
    unsigned hit = 0;

    for (unsigned i = 0; i < z->n; i++) {
        unsigned diff = 0;
        for (unsigned b = 0; b < 32; b++)
            diff |= (unsigned)(z->key[i][b] ^ pub[b]);
        hit |= (unsigned)(diff == 0);
    }
    return hit != 0;
}

/* Receive one request (its frames into f, at most ZAP_FRAMES); the count, 0 on none. */
static unsigned zap_recv(void *s, zmq_msg_t *f)
{
    unsigned n = 0;
    int more = 1;

    while (more) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, s, 0) < 0) {
            zmq_msg_close(&m);
            break;
        }
        more = zmq_msg_more(&m);
        if (n < ZAP_FRAMES)
            zmq_msg_move(&f[n++], &m);
        zmq_msg_close(&m);
    }
    return n;
}

/* Answer one request: 200 for a listed CURVE key, 400 otherwise. */
static void zap_answer(struct ebf_zap *z, zmq_msg_t *f, unsigned n)
{
    int ok = n == 7 && zmq_msg_size(&f[5]) == 5 && !memcmp(zmq_msg_data(&f[5]), "CURVE", 5) &&
             zmq_msg_size(&f[6]) == 32 && authorised(z, zmq_msg_data(&f[6]));
    const char *code = ok ? "200" : "400";
    const char *text = ok ? "OK" : "client key not authorised";

    if (!ok)
        __atomic_fetch_add(&z->refused, 1, __ATOMIC_RELAXED);
    zmq_send(z->sock, "1.0", 3, ZMQ_SNDMORE);
    if (n >= 2)
        zmq_send(z->sock, zmq_msg_data(&f[1]), zmq_msg_size(&f[1]), ZMQ_SNDMORE);
    else
        zmq_send(z->sock, "", 0, ZMQ_SNDMORE);
    zmq_send(z->sock, code, 3, ZMQ_SNDMORE);
    zmq_send(z->sock, text, strlen(text), ZMQ_SNDMORE);
    zmq_send(z->sock, ok ? "client" : "", ok ? 6 : 0, ZMQ_SNDMORE);
    zmq_send(z->sock, "", 0, 0);
}

static void *zap_main(void *arg)
{
    struct ebf_zap *z = arg;
    zmq_msg_t f[ZAP_FRAMES];

    while (!__atomic_load_n(&z->stop, __ATOMIC_ACQUIRE)) {
        zmq_pollitem_t it = {.socket = z->sock, .events = ZMQ_POLLIN};
        if (zmq_poll(&it, 1, 100) <= 0 || !(it.revents & ZMQ_POLLIN))
            continue;
        for (unsigned i = 0; i < ZAP_FRAMES; i++)
            zmq_msg_init(&f[i]);
        unsigned n = zap_recv(z->sock, f);
        if (n)
            zap_answer(z, f, n);
        for (unsigned i = 0; i < ZAP_FRAMES; i++)
            zmq_msg_close(&f[i]);
    }
    zmq_close(z->sock);
    return NULL;
}

struct ebf_zap *ebf_zap_start(void *zctx, const struct ebf_curve_server *k, char *err, size_t len)
{
    struct ebf_zap *z = calloc(1, sizeof(*z));
    int zero = 0, e;

    if (!z) {
        snprintf(err, len, "ZAP handler: %s", strerror(ENOMEM));
        return NULL;
    }
    for (unsigned i = 0; i < k->n_clients && i < EBF_CURVE_CLIENTS_MAX; i++)
        if (zmq_z85_decode(z->key[z->n], k->client[i]))
            z->n++;
    z->sock = zmq_socket(zctx, ZMQ_REP);
    if (!z->sock || zmq_setsockopt(z->sock, ZMQ_LINGER, &zero, sizeof(zero)) != 0 ||
        zmq_bind(z->sock, ZAP_EP) != 0) {
        snprintf(err, len, "ZAP handler: cannot bind %s: %s", ZAP_EP, zmq_strerror(errno));
        goto fail;
    }
    e = pthread_create(&z->thread, NULL, zap_main, z);
    if (e) {
        snprintf(err, len, "ZAP handler: cannot start its thread: %s", strerror(e));
        goto fail;
    }
    return z;
fail:
    if (z->sock)
        zmq_close(z->sock);
    free(z);
    return NULL;
}

unsigned long ebf_zap_refused(const struct ebf_zap *z)
{
    return z ? __atomic_load_n(&z->refused, __ATOMIC_RELAXED) : 0;
}

void ebf_zap_stop(struct ebf_zap *z)
{
    if (!z)
        return;
    __atomic_store_n(&z->stop, 1, __ATOMIC_RELEASE);
    pthread_join(z->thread, NULL);
    free(z);
}
