-- SPDX-License-Identifier: BSD-3-Clause
-- ebfarm.lua - Wireshark dissector of the ebfarm wire protocol v1 (docs/protocol.md) over raw Ethernet and UDP.
--
-- Frames: EtherType 0x88B5, or UDP to the port of the preference
-- ebfarm.udp_port (50505). Every header field of the five frame types is
-- a named, typed field (ebfarm.frag.*, ebfarm.event.*, ebfarm.credit.*,
-- ebfarm.ack.*, ebfarm.throttle.*, ebfarm.release.*: section 13), flags are bit fields, the CRC32C of
-- every fragment piece (alone or inside an event frame) is checked, and a
-- frame that a receiver would refuse carries expert info named after the
-- receiver's reason (docs/protocol.md, section 7): ebfarm.truncated,
-- ebfarm.bad_version, ebfarm.unknown_type, ebfarm.bad_length,
-- ebfarm.bad_source, ebfarm.bad_field, ebfarm.crc.bad. Installation and
-- use: tools/wireshark/README.md. Two files: this one (the dissectors
-- and their registration) and ebfarm_defs.lua beside it (frame types,
-- fields, expert infos, CRC32C), which this one loads from its own folder;
-- installing is copying both into one folder.

local ebf = Proto("ebfarm", "ebfarm event-building protocol")

local VERSION = 1
local ETHERTYPE = 0x88B5
local UDP_PORT_DEFAULT = 50505
local FRAG_HLEN, EVENT_HLEN, CREDIT_HLEN, ACK_LEN, THROTTLE_LEN = 40, 48, 16, 12, 16
local MAX_SOURCES, MAX_ACKS = 128, 64

-- The frame types, fields, expert infos and CRC32C: ebfarm_defs.lua, in
-- the folder of this file (its path from the chunk's source, "@/path/ebfarm.lua").
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or ""
local defs = dofile(here .. "ebfarm_defs.lua")(ebf)
local T_FRAGMENT, T_EVENT, T_CREDIT, T_THROTTLE, T_RELEASE = defs.T_FRAGMENT, defs.T_EVENT,
    defs.T_CREDIT, defs.T_THROTTLE, defs.T_RELEASE
local RELEASE_HLEN, RELEASE_REC_LEN, RELEASE_MAX_SRC = 32, 8, 32
local type_names = defs.type_names
local CRC_BAD, CRC_GOOD, CRC_UNVERIFIED = defs.CRC_BAD, defs.CRC_GOOD, defs.CRC_UNVERIFIED
local f, ex, crc32c = defs.f, defs.ex, defs.crc32c
local band, rshift = defs.band, defs.rshift

-- --- Preferences -----------------------------------------------------------

ebf.prefs.udp_port = Pref.uint("UDP port", UDP_PORT_DEFAULT,
                               "UDP port of ebfarm frames (the farm file's run.udp_port)")
ebf.prefs.check_crc = Pref.bool("Verify CRC32C", true,
                                "Check the CRC32C of every fragment piece")
ebf.prefs.n_sources = Pref.uint("Sources", 0,
                                "Sources of the run: fragments from a source at or above "
                                .. "it are marked bad_source (0: not checked)")
ebf.prefs.heuristic = Pref.bool("Find ebfarm on any UDP port", false,
                                "Try every UDP payload that passes the header checks "
                                .. "(fragments must carry a good CRC32C)")

-- --- Helpers -----------------------------------------------------------------

-- A check that failed: mark item with the expert info e and a text.
local function flag(item, e, text)
    item:add_proto_expert_info(e, text)
end

-- The version byte of a header at off; false when it is not 1 (marked).
local function check_version(tvb, off, tree)
    local v = tvb(off, 1):uint()
    local vi = tree:add(f.version, tvb(off, 1))
    if v ~= VERSION then
        flag(vi, ex.bad_version, string.format("Version %d: this is protocol version 1", v))
        return false
    end
    return true
end

-- Fewer than n bytes of what at off are in the capture: mark item as
-- truncated, or as snapped when the frame had them but the capture cut
-- them off (its snap length).
local function short(tvb, off, n, item, what)
    local left, sent = tvb:len() - off, tvb:reported_len() - off
    if sent >= n then
        flag(item, ex.snapped, string.format("%s: %d of its %d bytes captured", what, left, n))
    else
        flag(item, ex.truncated, string.format("Truncated %s: %d of %d bytes", what, left, n))
    end
end

-- A header needs n bytes at off; false (and marked) when fewer are there.
local function need(tvb, off, n, tree, what)
    local left = tvb:len() - off
    if left >= n then
        return true
    end
    local item = tree:add(tvb(off, left > 0 and left or 0), string.format(
        "%s: %d bytes, at least %d needed", what, left, n))
    short(tvb, off, n, item, what)
    return false
end

-- --- Fragment header and piece (type 1), docs/protocol.md section 4 --------

-- The CRC of the fragment at off: header bytes 0-27 and 32-39 and the piece.
local function frag_crc(tvb, off, piece_len)
    return crc32c(tvb:raw(off, 28) .. tvb:raw(off + 32, 8) .. tvb:raw(off + FRAG_HLEN, piece_len))
end

-- Add the CRC fields of a piece; returns the status.
local function add_crc(tvb, off, t, piece_ok, piece_len)
    local crc = tvb(off + 28, 4):uint()
    local ci = t:add(f.frag_crc, tvb(off + 28, 4))
    if not piece_ok or not ebf.prefs.check_crc then
        t:add(f.frag_crc_status, CRC_UNVERIFIED):set_generated()
        return CRC_UNVERIFIED
    end
    local calc = frag_crc(tvb, off, piece_len)
    t:add(f.frag_crc_calc, calc):set_generated()
    if calc == crc then
        ci:append_text(" [correct]")
        t:add(f.frag_crc_status, CRC_GOOD):set_generated()
        return CRC_GOOD
    end
    ci:append_text(string.format(" [incorrect, should be 0x%08x]", calc))
    t:add(f.frag_crc_status, CRC_BAD):set_generated()
    flag(ci, ex.crc_bad, string.format("Bad CRC32C 0x%08x (calculated 0x%08x)", crc, calc))
    return CRC_BAD
end

-- The 40-byte header fields of a fragment at off under t.
local function add_frag_fields(tvb, off, t)
    t:add(f.frag_source, tvb(off + 2, 2))
    t:add(f.frag_seq, tvb(off + 4, 4))
    t:add(f.frag_event_id, tvb(off + 8, 8))
    t:add(f.frag_len, tvb(off + 16, 4))
    t:add(f.frag_offset, tvb(off + 20, 4))
    t:add(f.frag_piece_len, tvb(off + 24, 2))
    local fi = t:add(f.frag_flags, tvb(off + 26, 2))
    fi:add(f.frag_flag_prebuilt, tvb(off + 26, 2))
    fi:add(f.frag_flag_replay, tvb(off + 26, 2))
    fi:add(f.frag_flag_reserved, tvb(off + 26, 2))
    t:add(f.frag_tx_ns, tvb(off + 32, 8))
    return fi
end

-- The checks and fields of a fragment at off whose 40 header bytes are
-- there (left bytes from off); returns as dissect_frag does.
local function frag_body(tvb, off, t, left)
    local h = {
        source = tvb(off + 2, 2):uint(), seq = tvb(off + 4, 4):uint(),
        event_id = tvb(off + 8, 8):uint64(), frag_len = tvb(off + 16, 4):uint(),
        offset = tvb(off + 20, 4):uint(), piece_len = tvb(off + 24, 2):uint(),
        flags = tvb(off + 26, 2):uint(),
    }
    local fi = add_frag_fields(tvb, off, t)
    local lengths_ok = h.piece_len >= 1 and h.offset + h.piece_len <= h.frag_len
    if not lengths_ok then
        flag(t, ex.bad_length, string.format(
            "piece_len %d at offset %d does not fit a fragment of %d bytes (piece_len >= 1, "
            .. "offset + piece_len <= frag_len)", h.piece_len, h.offset, h.frag_len))
    end
    local have = left >= FRAG_HLEN + h.piece_len
    if have and h.piece_len > 0 then
        t:add(f.frag_piece, tvb(off + FRAG_HLEN, h.piece_len))
    elseif not have then
        short(tvb, off, FRAG_HLEN + h.piece_len, t, "fragment piece")
    end
    if band(h.flags, 0xFFFC) ~= 0 then
        flag(fi, ex.bad_field, string.format("Flags 0x%04x: only bits 0 (prebuilt payload) and "
                                             .. "1 (replay) are defined, the others must be 0",
                                             h.flags))
    end
    local n_sources = ebf.prefs.n_sources
    if n_sources > 0 and h.source >= n_sources then
        flag(t, ex.bad_source, string.format("Source %d: the run has %d", h.source, n_sources))
    end
    local status = add_crc(tvb, off, t, have and lengths_ok, h.piece_len)
    local take = have and FRAG_HLEN + h.piece_len or nil
    local info = string.format("src=%d seq=%d ev=%s off=%d len=%d/%d", h.source, h.seq,
                               tostring(h.event_id), h.offset, h.piece_len, h.frag_len)
    if status == CRC_BAD then
        info = info .. " [BAD CRC]"
    end
    return take, info, status, h.source, h.event_id
end

-- Dissect one fragment (a frame's ebfarm bytes, or a piece of an event
-- frame) at off under tree. Returns the bytes it takes (nil when its end
-- cannot be known), a summary for the Info column, and when its header
-- is there its CRC status, source and event id.
local function dissect_frag(tvb, off, tree)
    local left = tvb:len() - off
    local t = tree:add(f.frag, tvb(off, math.min(left, FRAG_HLEN)))
    t:set_text("Fragment piece")
    if not need(tvb, off, 2, t, "fragment header") then
        return nil, "(truncated)"
    end
    if not check_version(tvb, off, t) then
        return nil, "(bad version)"
    end
    local ty = tvb(off + 1, 1):uint()
    local ti = t:add(f.type, tvb(off + 1, 1))
    if ty ~= T_FRAGMENT then
        local e = type_names[ty] and ex.bad_field or ex.unknown_type
        flag(ti, e, string.format("Type %d where a fragment (1) was expected", ty))
        return nil, "(not a fragment)"
    end
    if not need(tvb, off, FRAG_HLEN, t, "fragment header") then
        return nil, "(truncated)"
    end
    local take, info, status, source, event_id = frag_body(tvb, off, t, left)
    if take then
        t:set_len(take)
    end
    t:set_text("Fragment piece: " .. info)
    return take, info, status, source, event_id
end

-- --- Event frame (type 2), docs/protocol.md section 5 ----------------------

-- The present bitmap as four 32-bit words: sources 32w .. 32w+31.
local function present_words(tvb, off)
    return { [0] = tvb(off + 36, 4):uint(), tvb(off + 32, 4):uint(), tvb(off + 44, 4):uint(),
             tvb(off + 40, 4):uint() }
end

local function is_present(words, s)
    return band(rshift(words[math.floor(s / 32)], s % 32), 1) == 1
end

-- Present count, missing sources below n, and whether a bit at or above n is set.
local function present_summary(words, n)
    local count, missing, above = 0, {}, false
    for s = 0, MAX_SOURCES - 1 do
        if is_present(words, s) then
            count = count + 1
            above = above or s >= n
        elseif s < n then
            missing[#missing + 1] = tostring(s)
        end
    end
    return count, missing, above
end

-- Header checks and fields of an event frame; returns the header's values.
local function event_header(tvb, t)
    local h = {
        n_sources = tvb(2, 2):uint(), sfc_id = tvb(4, 2):uint(), flags = tvb(6, 2):uint(),
        event_id = tvb(8, 8):uint64(), frame_index = tvb(16, 2):uint(),
        frame_count = tvb(18, 2):uint(), n_pieces = tvb(20, 2):uint(),
    }
    local ni = t:add(f.ev_n_sources, tvb(2, 2))
    if h.n_sources == 0 or h.n_sources > MAX_SOURCES then
        flag(ni, ex.bad_field, string.format("n_sources %d: 1 to 128 allowed", h.n_sources))
    end
    t:add(f.ev_sfc_id, tvb(4, 2))
    local fl = t:add(f.ev_flags, tvb(6, 2))
    fl:add(f.ev_flag_incomplete, tvb(6, 2))
    fl:add(f.ev_flag_reserved, tvb(6, 2))
    if band(h.flags, 0xFFFE) ~= 0 then
        flag(fl, ex.bad_field, string.format("Flags 0x%04x: only INCOMPLETE (0x0001) is defined",
                                             h.flags))
    end
    t:add(f.ev_event_id, tvb(8, 8))
    local fx = t:add(f.ev_frame_index, tvb(16, 2))
    t:add(f.ev_frame_count, tvb(18, 2))
    if h.frame_count == 0 or h.frame_index >= h.frame_count then
        flag(fx, ex.bad_field, string.format("Frame %d of %d: frame_index < frame_count >= 1",
                                             h.frame_index, h.frame_count))
    end
    t:add(f.ev_n_pieces, tvb(20, 2))
    local r1 = t:add(f.ev_reserved, tvb(22, 2))
    t:add(f.ev_event_bytes, tvb(24, 4))
    local r2 = t:add(f.ev_reserved2, tvb(28, 4))
    for _, r in ipairs({ { r1, tvb(22, 2):uint() }, { r2, tvb(28, 4):uint() } }) do
        if r[2] ~= 0 then
            flag(r[1], ex.bad_field, "Reserved bytes must be 0")
        end
    end
    return h
end

-- The present bitmap of the header: fields, count, missing sources, checks.
local function event_present(tvb, t, h)
    local pi = t:add(f.ev_present0, tvb(32, 8))
    t:add(f.ev_present1, tvb(40, 8))
    h.words = present_words(tvb, 0)
    local count, missing, above = present_summary(h.words, h.n_sources)
    t:add(f.ev_present_count, count):set_generated()
    h.count = count
    if above then
        flag(pi, ex.bad_source, string.format("A present bit at or above n_sources (%d)",
                                              h.n_sources))
    end
    h.incomplete = band(h.flags, 1) == 1
    if h.incomplete then
        local mi = t:add(f.ev_missing, table.concat(missing, ","))
        mi:set_generated()
        flag(mi, ex.incomplete, string.format("Incomplete event: %d of %d sources, missing %s",
                                              count, h.n_sources, table.concat(missing, ",")))
    elseif count ~= h.n_sources then
        flag(pi, ex.bad_field, string.format("Complete event with %d of %d sources present",
                                             count, h.n_sources))
    end
end

-- The pieces after the header, each a fragment checked against the event.
local function event_pieces(tvb, t, h)
    local off = EVENT_HLEN
    local bad_crc = 0
    for i = 1, h.n_pieces do
        if tvb:len() - off < 2 then
            local item = t:add(tvb(off, 0), string.format("Piece %d of %d: missing", i,
                                                          h.n_pieces))
            flag(item, ex.truncated, string.format("The frame ends after %d of %d pieces",
                                                   i - 1, h.n_pieces))
            return off
        end
        local take, _, status, source, event_id = dissect_frag(tvb, off, t)
        if status == CRC_BAD then
            bad_crc = bad_crc + 1
        end
        if event_id and (event_id ~= h.event_id or not is_present(h.words, source)) then
            flag(t, ex.piece_mismatch, string.format(
                "Piece %d: source %d of event %s in event %s", i, source, tostring(event_id),
                tostring(h.event_id)))
        end
        if not take then
            return tvb:len(), bad_crc
        end
        off = off + take
    end
    return off, bad_crc
end

local function dissect_event(tvb, pinfo, t)
    if not need(tvb, 0, EVENT_HLEN, t, "event header") then
        return tvb:len(), "Event (truncated)"
    end
    local h = event_header(tvb, t)
    event_present(tvb, t, h)
    local take, bad_crc = event_pieces(tvb, t, h)
    local info = string.format("Event ev=%s sfc=%d frame %d/%d pieces=%d sources=%d/%d",
                               tostring(h.event_id), h.sfc_id, h.frame_index + 1,
                               h.frame_count, h.n_pieces, h.count, h.n_sources)
    if h.incomplete then
        info = info .. " INCOMPLETE"
    end
    if bad_crc and bad_crc > 0 then
        info = info .. " [BAD CRC]"
    end
    return take, info
end

-- --- Credit/ack frame (type 3), docs/protocol.md section 6 -----------------

local function dissect_ack(tvb, off, t, i)
    local a = t:add(f.ack, tvb(off, ACK_LEN))
    local event_id = tvb(off, 8):uint64()
    local decision = tvb(off + 8, 1):uint()
    local status = tvb(off + 9, 1):uint()
    a:add(f.ack_event_id, tvb(off, 8))
    local di = a:add(f.ack_decision, tvb(off + 8, 1))
    if decision > 1 then
        flag(di, ex.bad_field, string.format("Decision %d: 0 (reject) or 1 (accept)", decision))
    end
    local si = a:add(f.ack_status, tvb(off + 9, 1))
    si:add(f.ack_bad_crc, tvb(off + 9, 1))
    si:add(f.ack_bad_pattern, tvb(off + 9, 1))
    si:add(f.ack_bad_sources, tvb(off + 9, 1))
    si:add(f.ack_bad_event_id, tvb(off + 9, 1))
    si:add(f.ack_status_reserved, tvb(off + 9, 1))
    local ri = a:add(f.ack_reserved, tvb(off + 10, 2))
    if tvb(off + 10, 2):uint() ~= 0 then
        flag(ri, ex.bad_field, "Reserved bytes must be 0")
    end
    a:set_text(string.format("Ack %d: event %s %s%s", i, tostring(event_id),
                             decision == 1 and "accept" or (decision == 0 and "reject" or "?"),
                             status ~= 0 and string.format(" status 0x%02x", status) or ""))
end

local function dissect_credit(tvb, pinfo, t)
    if not need(tvb, 0, CREDIT_HLEN, t, "credit header") then
        return tvb:len(), "Credit (truncated)"
    end
    local node, credits, n_acks = tvb(2, 2):uint(), tvb(4, 2):uint(), tvb(6, 2):uint()
    local epoch, seq = tvb(8, 4):uint(), tvb(12, 4):uint()
    t:add(f.cr_node_id, tvb(2, 2))
    t:add(f.cr_credits, tvb(4, 2))
    local ni = t:add(f.cr_n_acks, tvb(6, 2))
    t:add(f.cr_epoch, tvb(8, 4))
    t:add(f.cr_seq, tvb(12, 4))
    local heartbeat = credits == 0 and n_acks == 0
    t:add(f.cr_heartbeat, heartbeat):set_generated()
    local info = string.format("%s node=%d epoch=%d seq=%d credits=%d acks=%d",
                               heartbeat and "Heartbeat" or "Credit", node, epoch, seq, credits,
                               n_acks)
    if n_acks > MAX_ACKS then
        flag(ni, ex.bad_length, string.format("%d acks: at most 64", n_acks))
        return tvb:len(), info
    end
    if not need(tvb, 0, CREDIT_HLEN + ACK_LEN * n_acks, t, "ack records") then
        return tvb:len(), info
    end
    for i = 1, n_acks do
        dissect_ack(tvb, CREDIT_HLEN + ACK_LEN * (i - 1), t, i)
    end
    return CREDIT_HLEN + ACK_LEN * n_acks, info
end

-- --- Throttle frame (type 4), docs/protocol.md section 10 ------------------

local function dissect_throttle(tvb, pinfo, t)
    if not need(tvb, 0, THROTTLE_LEN, t, "throttle frame") then
        return tvb:len(), "Throttle (truncated)"
    end
    local sfc, on, fill, seq = tvb(2, 2):uint(), tvb(4, 1):uint(), tvb(6, 2):uint(),
        tvb(8, 4):uint()
    t:add(f.th_sfc_id, tvb(2, 2))
    local oi = t:add(f.th_on, tvb(4, 1))
    if on > 1 then
        flag(oi, ex.bad_field, string.format("on %d: 0 (resume) or 1 (hold)", on))
    end
    local r1 = t:add(f.th_reserved, tvb(5, 1))
    t:add(f.th_fill, tvb(6, 2))
    t:add(f.th_seq, tvb(8, 4))
    local r2 = t:add(f.th_reserved2, tvb(12, 4))
    if tvb(5, 1):uint() ~= 0 then
        flag(r1, ex.bad_field, "Reserved byte must be 0")
    end
    if tvb(12, 4):uint() ~= 0 then
        flag(r2, ex.bad_field, "Reserved bytes must be 0")
    end
    return THROTTLE_LEN, string.format("Throttle sfc=%d %s fill=%d seq=%d", sfc,
                                       on == 1 and "ON" or (on == 0 and "OFF" or "?"), fill, seq)
end

-- --- Release frame (type 5), docs/protocol.md section 13.2 ------------------

-- The checks of 13.2 on the 32 header bytes (flags, at, reserved).
local function release_checks(tvb, t, fi, ai, ri)
    local flags, at = tvb(4, 1):uint(), tvb(20, 8):uint64()
    if flags == 4 then
        if at ~= UInt64(0) or tvb(5, 1):uint() ~= 0 then
            flag(fi, ex.bad_field, "A dead notice has no records and at 0")
        end
    elseif flags == 8 then
        if tvb(5, 1):uint() == 0 then
            flag(fi, ex.bad_field, "A replay end names its sources: at least one record")
        end
    elseif band(flags, 0xF0) ~= 0 or band(flags, 0x0C) ~= 0 then
        flag(fi, ex.bad_field, string.format("Flags 0x%02x: bits 0 (join), 1 (leave), 2 "
                                             .. "(dead notice, alone) and 3 (replay end, "
                                             .. "alone) are defined", flags))
    elseif flags == 3 then
        flag(fi, ex.bad_field, "Join and leave both set: at most one")
    end
    if flags == 0 and at ~= UInt64(0) then
        flag(ai, ex.bad_field, "An id without the join or leave flag: at must be 0")
    end
    if tvb(28, 4):uint() ~= 0 then
        flag(ri, ex.bad_field, "Reserved bytes must be 0")
    end
end

local function dissect_release(tvb, pinfo, t)
    if not need(tvb, 0, RELEASE_HLEN, t, "release frame") then
        return tvb:len(), "Release (truncated)"
    end
    local place, n_src, epoch, seq = tvb(2, 2):uint(), tvb(5, 1):uint(), tvb(6, 2):uint(),
        tvb(8, 4):uint()
    t:add(f.rl_place, tvb(2, 2))
    local fi = t:add(f.rl_flags, tvb(4, 1))
    fi:add(f.rl_flag_join, tvb(4, 1))
    fi:add(f.rl_flag_leave, tvb(4, 1))
    fi:add(f.rl_flag_dead, tvb(4, 1))
    fi:add(f.rl_flag_end, tvb(4, 1))
    fi:add(f.rl_flag_reserved, tvb(4, 1))
    local ni = t:add(f.rl_n_src, tvb(5, 1))
    t:add(f.rl_epoch, tvb(6, 2))
    t:add(f.rl_seq, tvb(8, 4))
    t:add(f.rl_low, tvb(12, 8))
    local ai = t:add(f.rl_at, tvb(20, 8))
    local ri = t:add(f.rl_reserved, tvb(28, 4))
    release_checks(tvb, t, fi, ai, ri)
    local info = string.format("Release place=%d epoch=%d seq=%d low=%s", place, epoch, seq,
                               tostring(tvb(12, 8):uint64()))
    if tvb(4, 1):uint() == 8 then
        info = string.format("Replay end place=%d epoch=%d from=%s replayed_to=%s", place, epoch,
                             tostring(tvb(12, 8):uint64()), tostring(tvb(20, 8):uint64()))
    end
    if n_src > RELEASE_MAX_SRC then
        flag(ni, ex.bad_length, string.format("%d source records: at most %d", n_src,
                                              RELEASE_MAX_SRC))
        return tvb:len(), info
    end
    local take = RELEASE_HLEN + RELEASE_REC_LEN * n_src
    if not need(tvb, 0, take, t, "release frame's source records") then
        return tvb:len(), info
    end
    for i = 0, n_src - 1 do
        local off = RELEASE_HLEN + RELEASE_REC_LEN * i
        local rt = t:add(ebf, tvb(off, RELEASE_REC_LEN), "Source record")
        rt:add(f.rl_src, tvb(off, 2))
        local si = rt:add(f.rl_src_reserved, tvb(off + 2, 2))
        rt:add(f.rl_next_seq, tvb(off + 4, 4))
        if tvb(off + 2, 2):uint() ~= 0 then
            flag(si, ex.bad_field, "Reserved bytes must be 0")
        end
    end
    return take, info
end

-- --- The frame -----------------------------------------------------------------

local by_type = { [T_EVENT] = dissect_event, [T_CREDIT] = dissect_credit,
                  [T_THROTTLE] = dissect_throttle, [T_RELEASE] = dissect_release }

-- The ebfarm bytes of one frame (after the EtherType or the UDP header).
-- Returns the bytes the message takes; Ethernet padding after it is left
-- to the Ethernet dissector.
function ebf.dissector(tvb, pinfo, tree)
    pinfo.cols.protocol = "ebfarm"
    local t = tree:add(ebf, tvb())
    if not need(tvb, 0, 2, t, "ebfarm header") then
        pinfo.cols.info = "ebfarm (truncated)"
        return tvb:len()
    end
    local ty = tvb(1, 1):uint()
    if tvb(0, 1):uint() ~= VERSION then
        check_version(tvb, 0, t)
        pinfo.cols.info = string.format("ebfarm version %d", tvb(0, 1):uint())
        return tvb:len()
    end
    if ty == T_FRAGMENT then
        local take, info = dissect_frag(tvb, 0, t)
        pinfo.cols.info = "Fragment " .. info
        take = take or tvb:len()
        t:set_len(take)
        t:append_text(", fragment")
        return take
    end
    check_version(tvb, 0, t)
    local ti = t:add(f.type, tvb(1, 1))
    local fn = by_type[ty]
    if not fn then
        flag(ti, ex.unknown_type, string.format("Type %d: 1 to 5 are known", ty))
        pinfo.cols.info = string.format("ebfarm type %d", ty)
        return tvb:len()
    end
    local take, info = fn(tvb, pinfo, t)
    pinfo.cols.info = info
    t:set_len(take)
    t:append_text(", " .. type_names[ty])
    return take
end

-- --- Registration ----------------------------------------------------------------

-- Whether a UDP payload looks like ebfarm: the checks of a receiver on
-- its header (a fragment must also carry a good CRC).
local function plausible(tvb)
    local len = tvb:len()
    if len < 16 or tvb(0, 1):uint() ~= VERSION then
        return false
    end
    local ty = tvb(1, 1):uint()
    if ty == T_FRAGMENT then
        if len < FRAG_HLEN then return false end
        local piece_len, offset, frag_len = tvb(24, 2):uint(), tvb(20, 4):uint(), tvb(16, 4):uint()
        return piece_len >= 1 and offset + piece_len <= frag_len
            and band(tvb(26, 2):uint(), 0xFFFC) == 0
            and len >= FRAG_HLEN + piece_len
            and frag_crc(tvb, 0, piece_len) == tvb(28, 4):uint()
    elseif ty == T_EVENT then
        local n, fi, fc = tvb(2, 2):uint(), tvb(16, 2):uint(), tvb(18, 2):uint()
        return len >= EVENT_HLEN and n >= 1 and n <= MAX_SOURCES and fi < fc
            and band(tvb(6, 2):uint(), 0xFFFE) == 0 and tvb(22, 2):uint() == 0
            and tvb(28, 4):uint() == 0
    elseif ty == T_CREDIT then
        local n = tvb(6, 2):uint()
        return n <= MAX_ACKS and len >= CREDIT_HLEN + ACK_LEN * n
    elseif ty == T_THROTTLE then
        return tvb(4, 1):uint() <= 1 and tvb(5, 1):uint() == 0 and tvb(12, 4):uint() == 0
    elseif ty == T_RELEASE then
        local n = tvb(5, 1):uint()
        return len >= RELEASE_HLEN + RELEASE_REC_LEN * n and n <= RELEASE_MAX_SRC
            and band(tvb(4, 1):uint(), 0xFC) == 0 and tvb(28, 4):uint() == 0
    end
    return false
end

local function heuristic(tvb, pinfo, tree)
    if not ebf.prefs.heuristic or not plausible(tvb) then
        return false
    end
    ebf.dissector(tvb, pinfo, tree)
    return true
end

local udp_port = 0

local function register_udp_port()
    local t = DissectorTable.get("udp.port")
    if udp_port ~= 0 then
        t:remove(udp_port, ebf)
    end
    udp_port = ebf.prefs.udp_port
    if udp_port ~= 0 then
        t:add(udp_port, ebf)
    end
end

function ebf.prefs_changed()
    if ebf.prefs.udp_port ~= udp_port then
        register_udp_port()
    end
end

DissectorTable.get("ethertype"):add(ETHERTYPE, ebf)
register_udp_port()
ebf:register_heuristic("udp", heuristic)
