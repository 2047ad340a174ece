/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_pattern.h - the emulated payload: bytes derived from (source, event, offset), checkable piece by piece. */
#ifndef EBF_PATTERN_H
#define EBF_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_proto.h"

/*
 * The readout fills fragment bytes with a pattern derived from (source,
 * event, offset), so that any piece can be checked alone, wherever it was
 * cut (docs/protocol.md gives the definition). Pure functions over plain
 * buffers: any thread.
 */

/*
 * The prebuilt payload (fragment flag EBF_FRAGF_PREBUILT, ebf_proto.h): the
 * bytes of (source, offset) alone, the same in every event, so that a
 * sender builds them once and writes only headers per frame. They are the
 * pattern of (source, EBF_PATTERN_PREBUILT_ID): every function here takes
 * that id for them; ebf_pattern_id picks the id a piece's flags call for.
 */
#define EBF_PATTERN_PREBUILT_ID UINT64_MAX

static inline uint64_t ebf_pattern_id(uint64_t event_id, uint16_t frag_flags)
{
    return (frag_flags & EBF_FRAGF_PREBUILT) ? EBF_PATTERN_PREBUILT_ID : event_id;
}

/* Fill len bytes of a fragment's payload starting at fragment offset off. */
void ebf_pattern_fill(uint8_t *buf, size_t len, uint16_t source, uint64_t event_id,
                      uint32_t off);

/* Check a piece against the pattern: returns the index of the first wrong
 * byte in buf, or -1 when all len bytes match. */
long ebf_pattern_check(const uint8_t *buf, size_t len, uint16_t source,
                       uint64_t event_id, uint32_t off);

/* The same check (1: every byte matches, 0: not) and the CRC32C *crc
 * continued over the len bytes (as ebf_crc32c(*crc, buf, len)), in one pass
 * over them. */
int ebf_pattern_check_crc(const uint8_t *buf, size_t len, uint16_t source, uint64_t event_id,
                          uint32_t off, uint32_t *crc);

/* Fill as ebf_pattern_fill does and continue the CRC32C *crc over the len
 * bytes written, in one pass. */
void ebf_pattern_fill_crc(uint8_t *buf, size_t len, uint16_t source, uint64_t event_id,
                          uint32_t off, uint32_t *crc);

#endif /* EBF_PATTERN_H */
