/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_fast.c - the fragment header of the readout's common case from words made once per run. */
#include "ro_fast.h"

#include <string.h>

#include "ebf_crc.h"

#if defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RO_FAST_X86 1
#endif

int ro_fast_init(struct ro_fast *f, const struct ro_payload *p, uint16_t source_base,
                 uint16_t n_sources, uint32_t len)
{
    memset(f, 0, sizeof(*f));
#ifdef RO_FAST_X86
    if (!ebf_crc32c_has_clmul())
        return -1;
    if (!p->piece || n_sources == 0 || n_sources > EBF_MAX_SOURCES || len == 0 ||
        len > UINT16_MAX)
        return -1;
    for (uint16_t s = 0; s < n_sources; s++)
        if (p->piece[(size_t)s * p->n_pieces].len != len)
            return -1;
    for (uint16_t s = 0; s < n_sources; s++) {
        f->w0[s] = __builtin_bswap64((uint64_t)EBF_PROTO_VERSION << 56 |
                                     (uint64_t)EBF_T_FRAGMENT << 48 |
                                     (uint64_t)(uint16_t)(source_base + s) << 32);
        f->crc[s] = p->piece[(size_t)s * p->n_pieces].crc;
        struct ebf_frag_hdr h = {.offset = 0, .piece_len = (uint16_t)len};
        f->tag[s] = ro_payload_tag(p, &h, s);
    }
    f->w2 = __builtin_bswap64((uint64_t)len << 32);
    f->w3 = __builtin_bswap32(len << 16 | EBF_FRAGF_PREBUILT);
    f->k_clmul = p->piece[0].shift.k_clmul;
    f->len = len;
    return 0;
#else
    (void)p, (void)source_base, (void)n_sources, (void)len;
    return -1;
#endif
}

#ifdef RO_FAST_X86
/* ebf_frag_write_crc's words and CRC: each word stored and fed to the CRC
 * instruction from its register, the header's CRC shifted over the piece
 * and combined with the piece's. */
__attribute__((target("pclmul,sse4.2")))
uint32_t ro_fast_write(const struct ro_fast *f, uint8_t *buf, uint16_t s, uint32_t seq,
                       uint64_t event_id, uint64_t tx_ns)
{
    uint64_t w0 = f->w0[s] | (uint64_t)__builtin_bswap32(seq) << 32;
    uint64_t w1 = __builtin_bswap64(event_id), w4 = __builtin_bswap64(tx_ns);
    uint64_t c = __builtin_ia32_crc32di(0xffffffffu, w0);

    c = __builtin_ia32_crc32di(c, w1);
    c = __builtin_ia32_crc32di(c, f->w2);
    c = __builtin_ia32_crc32si((uint32_t)c, f->w3);
    c = __builtin_ia32_crc32di(c, w4);
    uint32_t crc = ebf_crc32c_shift_clmul_x86(~(uint32_t)c, f->k_clmul) ^ f->crc[s];
    uint32_t w5 = __builtin_bswap32(crc);
    memcpy(buf, &w0, 8);
    memcpy(buf + 8, &w1, 8);
    memcpy(buf + 16, &f->w2, 8);
    memcpy(buf + 24, &f->w3, 4);
    memcpy(buf + 28, &w5, 4);
    memcpy(buf + 32, &w4, 8);
    return crc;
}
#else
uint32_t ro_fast_write(const struct ro_fast *f, uint8_t *buf, uint16_t s, uint32_t seq,
                       uint64_t event_id, uint64_t tx_ns)
{
    (void)f, (void)buf, (void)s, (void)seq, (void)event_id, (void)tx_ns;
    return 0;                   /* never called: ro_fast_init refused */
}
#endif
