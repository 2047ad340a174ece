-- SPDX-License-Identifier: BSD-3-Clause
-- ebfarm_defs.lua - the ebfarm dissector's frame types, fields, expert infos and CRC32C; ebfarm.lua loads it from beside itself.
--
-- Returns one function, defs(ebf), that makes the fields and expert
-- infos, registers them on the Proto ebf, and returns them with the frame
-- type numbers and crc32c. Run alone (a Wireshark that loads every .lua
-- of its plugins folder) it makes no field and registers nothing.

-- --- CRC32C (Castagnoli, reflected 0x82F63B78), docs/protocol.md section 4 -

-- 32-bit unsigned bit operations: bit32 (Lua 5.2), the native operators
-- (Lua 5.3 and later), or LuaBitOp (signed results, made unsigned).
local bxor, band, rshift
if bit32 then
    bxor, band, rshift = bit32.bxor, bit32.band, bit32.rshift
else
    local native = load and load("return function(a, b) return a ~ b end, "
                                 .. "function(a, b) return a & b end, "
                                 .. "function(a, n) return a >> n end")
    if native then
        bxor, band, rshift = native()
    else
        local M = 4294967296
        bxor = function(a, b) return bit.bxor(a, b) % M end
        band = function(a, b) return bit.band(a, b) % M end
        rshift = function(a, n) return bit.rshift(a, n) % M end
    end
end

local crc_table = {}
for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
        if band(c, 1) == 1 then
            c = bxor(rshift(c, 1), 0x82F63B78)
        else
            c = rshift(c, 1)
        end
    end
    crc_table[i] = c
end

local function crc32c(s)
    local c = 0xFFFFFFFF
    for i = 1, #s do
        c = bxor(crc_table[band(bxor(c, s:byte(i)), 0xFF)], rshift(c, 8))
    end
    return bxor(c, 0xFFFFFFFF)
end

return function(ebf)
    local T_FRAGMENT, T_EVENT, T_CREDIT, T_THROTTLE, T_RELEASE = 1, 2, 3, 4, 5

    local type_names = {
        [T_FRAGMENT] = "fragment", [T_EVENT] = "event", [T_CREDIT] = "credit",
        [T_THROTTLE] = "throttle", [T_RELEASE] = "release",
    }
    local crc_status_names = { [0] = "Bad", [1] = "Good", [2] = "Unverified" }
    local CRC_BAD, CRC_GOOD, CRC_UNVERIFIED = 0, 1, 2

    -- --- Fields ---------------------------------------------------------------

    local f = {
        version = ProtoField.uint8("ebfarm.version", "Version", base.DEC),
        type = ProtoField.uint8("ebfarm.type", "Type", base.DEC, type_names),

        frag = ProtoField.bytes("ebfarm.frag", "Fragment piece", base.NONE),
        frag_source = ProtoField.uint16("ebfarm.frag.source", "Source", base.DEC),
        frag_seq = ProtoField.uint32("ebfarm.frag.seq", "Sequence", base.DEC),
        frag_event_id = ProtoField.uint64("ebfarm.frag.event_id", "Event id", base.DEC),
        frag_len = ProtoField.uint32("ebfarm.frag.frag_len", "Fragment length", base.DEC),
        frag_offset = ProtoField.uint32("ebfarm.frag.offset", "Piece offset", base.DEC),
        frag_piece_len = ProtoField.uint16("ebfarm.frag.piece_len", "Piece length", base.DEC),
        frag_flags = ProtoField.uint16("ebfarm.frag.flags", "Flags", base.HEX),
        frag_flag_prebuilt = ProtoField.bool("ebfarm.frag.flags.prebuilt", "Prebuilt payload", 16,
                                             nil, 0x0001),
        frag_flag_replay = ProtoField.bool("ebfarm.frag.flags.replay", "Replayed (failover)", 16,
                                           nil, 0x0002),
        frag_flag_reserved = ProtoField.uint16("ebfarm.frag.flags.reserved", "Reserved flags",
                                               base.HEX, nil, 0xFFFC),
        frag_crc = ProtoField.uint32("ebfarm.frag.crc", "CRC32C", base.HEX),
        frag_crc_status = ProtoField.uint8("ebfarm.frag.crc.status", "CRC32C status", base.DEC,
                                           crc_status_names),
        frag_crc_calc = ProtoField.uint32("ebfarm.frag.crc.calculated", "Calculated CRC32C",
                                          base.HEX),
        frag_tx_ns = ProtoField.uint64("ebfarm.frag.tx_ns", "Transmit time (ns)", base.DEC),
        frag_piece = ProtoField.bytes("ebfarm.frag.piece", "Piece bytes"),

        ev_n_sources = ProtoField.uint16("ebfarm.event.n_sources", "Sources", base.DEC),
        ev_sfc_id = ProtoField.uint16("ebfarm.event.sfc_id", "SFC id", base.DEC),
        ev_flags = ProtoField.uint16("ebfarm.event.flags", "Flags", base.HEX),
        ev_flag_incomplete = ProtoField.bool("ebfarm.event.flags.incomplete", "Incomplete", 16,
                                             nil, 0x0001),
        ev_flag_reserved = ProtoField.uint16("ebfarm.event.flags.reserved", "Reserved flags",
                                             base.HEX, nil, 0xFFFE),
        ev_event_id = ProtoField.uint64("ebfarm.event.event_id", "Event id", base.DEC),
        ev_frame_index = ProtoField.uint16("ebfarm.event.frame_index", "Frame index", base.DEC),
        ev_frame_count = ProtoField.uint16("ebfarm.event.frame_count", "Frame count", base.DEC),
        ev_n_pieces = ProtoField.uint16("ebfarm.event.n_pieces", "Pieces", base.DEC),
        ev_reserved = ProtoField.uint16("ebfarm.event.reserved", "Reserved", base.HEX),
        ev_event_bytes = ProtoField.uint32("ebfarm.event.event_bytes", "Event bytes", base.DEC),
        ev_reserved2 = ProtoField.uint32("ebfarm.event.reserved2", "Reserved", base.HEX),
        ev_present0 = ProtoField.uint64("ebfarm.event.present0", "Present (sources 0-63)",
                                        base.HEX),
        ev_present1 = ProtoField.uint64("ebfarm.event.present1", "Present (sources 64-127)",
                                        base.HEX),
        ev_present_count = ProtoField.uint16("ebfarm.event.present_count", "Sources present",
                                             base.DEC),
        ev_missing = ProtoField.string("ebfarm.event.missing", "Missing sources"),

        cr_node_id = ProtoField.uint16("ebfarm.credit.node_id", "Node id", base.DEC),
        cr_credits = ProtoField.uint16("ebfarm.credit.credits", "Credits", base.DEC),
        cr_n_acks = ProtoField.uint16("ebfarm.credit.n_acks", "Acks", base.DEC),
        cr_epoch = ProtoField.uint32("ebfarm.credit.epoch", "Epoch", base.DEC),
        cr_seq = ProtoField.uint32("ebfarm.credit.seq", "Sequence", base.DEC),
        cr_heartbeat = ProtoField.bool("ebfarm.credit.heartbeat", "Heartbeat"),

        ack = ProtoField.bytes("ebfarm.ack", "Ack", base.NONE),
        ack_event_id = ProtoField.uint64("ebfarm.ack.event_id", "Event id", base.DEC),
        ack_decision = ProtoField.uint8("ebfarm.ack.decision", "Decision", base.DEC,
                                        { [0] = "reject", [1] = "accept" }),
        ack_status = ProtoField.uint8("ebfarm.ack.status", "Status", base.HEX),
        ack_bad_crc = ProtoField.bool("ebfarm.ack.status.bad_crc", "Bad CRC", 8, nil, 0x01),
        ack_bad_pattern = ProtoField.bool("ebfarm.ack.status.bad_pattern", "Bad pattern", 8, nil,
                                          0x02),
        ack_bad_sources = ProtoField.bool("ebfarm.ack.status.bad_sources", "Bad sources", 8, nil,
                                          0x04),
        ack_bad_event_id = ProtoField.bool("ebfarm.ack.status.bad_event_id", "Bad event id", 8,
                                           nil, 0x08),
        ack_status_reserved = ProtoField.uint8("ebfarm.ack.status.reserved", "Reserved bits",
                                               base.HEX, nil, 0xF0),
        ack_reserved = ProtoField.uint16("ebfarm.ack.reserved", "Reserved", base.HEX),

        th_sfc_id = ProtoField.uint16("ebfarm.throttle.sfc_id", "SFC id", base.DEC),
        th_on = ProtoField.uint8("ebfarm.throttle.on", "On", base.DEC,
                                 { [0] = "resume", [1] = "hold" }),
        th_reserved = ProtoField.uint8("ebfarm.throttle.reserved", "Reserved", base.HEX),
        th_fill = ProtoField.uint16("ebfarm.throttle.fill", "Fill (per mille)", base.DEC),
        th_seq = ProtoField.uint32("ebfarm.throttle.seq", "Sequence", base.DEC),
        th_reserved2 = ProtoField.uint32("ebfarm.throttle.reserved2", "Reserved", base.HEX),

        rl_place = ProtoField.uint16("ebfarm.release.place", "SFC place", base.DEC),
        rl_flags = ProtoField.uint8("ebfarm.release.flags", "Flags", base.HEX),
        rl_flag_join = ProtoField.bool("ebfarm.release.flags.join", "Join at", 8, nil, 0x01),
        rl_flag_leave = ProtoField.bool("ebfarm.release.flags.leave", "Leave at", 8, nil, 0x02),
        rl_flag_dead = ProtoField.bool("ebfarm.release.flags.dead",
                                       "Dead notice (readout -> SFC)", 8, nil, 0x04),
        rl_flag_end = ProtoField.bool("ebfarm.release.flags.end",
                                      "Replay end (readout -> SFC)", 8, nil, 0x08),
        rl_flag_reserved = ProtoField.uint8("ebfarm.release.flags.reserved", "Reserved flags",
                                            base.HEX, nil, 0xF0),
        rl_n_src = ProtoField.uint8("ebfarm.release.n_src", "Source records", base.DEC),
        rl_epoch = ProtoField.uint16("ebfarm.release.epoch", "Epoch", base.DEC),
        rl_seq = ProtoField.uint32("ebfarm.release.seq", "Sequence", base.DEC),
        rl_low = ProtoField.uint64("ebfarm.release.low", "Low (every id below is decided)",
                                   base.DEC),
        rl_at = ProtoField.uint64("ebfarm.release.at",
                                  "Join or leave id (replay end: 1 + highest replayed id)",
                                  base.DEC),
        rl_reserved = ProtoField.uint32("ebfarm.release.reserved", "Reserved", base.HEX),
        rl_src = ProtoField.uint16("ebfarm.release.source", "Source", base.DEC),
        rl_src_reserved = ProtoField.uint16("ebfarm.release.source_reserved", "Reserved",
                                            base.HEX),
        rl_next_seq = ProtoField.uint32("ebfarm.release.next_seq", "Next sequence", base.DEC),
    }
    local field_list = {}
    for _, v in pairs(f) do field_list[#field_list + 1] = v end
    ebf.fields = field_list

    -- --- Expert info: one per receiver reason (docs/protocol.md, section 7) ----

    local ex = {
        truncated = ProtoExpert.new("ebfarm.truncated", "Truncated: the bytes end before the headers do",
                                    expert.group.MALFORMED, expert.severity.ERROR),
        bad_version = ProtoExpert.new("ebfarm.bad_version", "Version byte is not 1",
                                      expert.group.MALFORMED, expert.severity.ERROR),
        unknown_type = ProtoExpert.new("ebfarm.unknown_type", "Unknown frame type",
                                       expert.group.MALFORMED, expert.severity.ERROR),
        bad_length = ProtoExpert.new("ebfarm.bad_length", "Length fields disagree",
                                     expert.group.MALFORMED, expert.severity.ERROR),
        bad_source = ProtoExpert.new("ebfarm.bad_source", "Source id out of range",
                                     expert.group.MALFORMED, expert.severity.ERROR),
        bad_field = ProtoExpert.new("ebfarm.bad_field", "Reserved bits set or a count out of range",
                                    expert.group.MALFORMED, expert.severity.ERROR),
        crc_bad = ProtoExpert.new("ebfarm.crc.bad", "Bad CRC32C",
                                  expert.group.CHECKSUM, expert.severity.ERROR),
        piece_mismatch = ProtoExpert.new("ebfarm.piece.mismatch",
                                         "Piece does not match its event header",
                                         expert.group.PROTOCOL, expert.severity.WARN),
        incomplete = ProtoExpert.new("ebfarm.event.incomplete", "Incomplete event: sources missing",
                                     expert.group.SEQUENCE, expert.severity.NOTE),
        snapped = ProtoExpert.new("ebfarm.snapped", "Cut by the capture's snap length",
                                  expert.group.UNDECODED, expert.severity.NOTE),
    }
    ebf.experts = { ex.truncated, ex.bad_version, ex.unknown_type, ex.bad_length, ex.bad_source,
                    ex.bad_field, ex.crc_bad, ex.piece_mismatch, ex.incomplete, ex.snapped }

    return {
        T_FRAGMENT = T_FRAGMENT, T_EVENT = T_EVENT, T_CREDIT = T_CREDIT,
        T_THROTTLE = T_THROTTLE, T_RELEASE = T_RELEASE, type_names = type_names,
        CRC_BAD = CRC_BAD, CRC_GOOD = CRC_GOOD, CRC_UNVERIFIED = CRC_UNVERIFIED,
        f = f, ex = ex, crc32c = crc32c, band = band, rshift = rshift,
    }
end
