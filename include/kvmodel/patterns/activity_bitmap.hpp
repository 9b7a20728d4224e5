// kvmodel/patterns/activity_bitmap.hpp
//
// Activity bitmap (seed "Bitwise operations on bitfields", bitwise_operations.py):
// one record per owner holding
//   dminutes  a bitfield of the minutes of today (1440 bits = 180 bytes):
//             bit m is raised when the owner was active in minute m;
//   recent    a bitfield of the last 368 days (46 bytes): the last bit is
//             today, bit days-1-d is "d days ago";
//   ntotal, nmonth, nweek, ntoday   activity counters.
// record() raises both bits and increments the four counters in ONE
// operate(), creating the bitfields on first use (insert with CREATE_ONLY |
// NO_FAIL: a no-op once they exist). Queries are single bit reads: was there
// activity at minute m (get), how many in a window (count), the most recent
// minute (rscan), the first active day of the last N (lscan over the last N
// bits). The daily roll shifts `recent` left by one (lshift), clears the
// minutes and today's counter — for one owner, or for every owner of the set
// as a background job (patterns/background_ops.hpp), as the seed does with a
// background scan.
//
// Cost: every call is one operate() on the owner's record (~300 bytes); the
// bit reads are O(bits / 8) on the server. Departure from the seed: it reports
// the lscan result of the last 90 days as "the most recent event"; lscan finds
// the OLDEST active day of the window (first_active_day), rscan the most
// recent (last_active_day) — both are here, named for what they return.
#pragma once

#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/patterns/background_ops.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// Where an activity bitmap keeps its records, the names of its bins and its geometry.
struct activity_bitmap_options {
    /// The namespace.
    std::string ns = "test";
    /// The set: one record per owner.
    std::string set = "activity";
    /// The bitfield of today's slots (minutes).
    std::string minutes_bin = "dminutes";
    /// The bitfield of the last `days` days; its last bit is today.
    std::string days_bin = "recent";
    /// Counter of every recorded event.
    std::string total_bin = "ntotal";
    /// Counter of this month's events (reset by roll_day with new_month).
    std::string month_bin = "nmonth";
    /// Counter of this week's events (reset by roll_day with new_week).
    std::string week_bin = "nweek";
    /// Counter of today's events (reset by every roll_day).
    std::string today_bin = "ntoday";
    /// Slots of the day bitfield (the seed: minutes, 1440).
    std::uint32_t slots_per_day = 1440;
    /// Days of history (the seed: 368).
    std::uint32_t days = 368;
    /// Policy of the writes (record, roll_day).
    kv::write_policy write{};
    /// Policy of the reads.
    kv::read_policy read{};
};

/// The owner's counters.
struct activity_counters {
    /// Events ever recorded.
    std::int64_t total = 0;
    /// Events this month.
    std::int64_t month = 0;
    /// Events this week.
    std::int64_t week = 0;
    /// Events today.
    std::int64_t today = 0;
    /// Field by field.
    friend bool operator==(const activity_counters&, const activity_counters&) = default;
};

/// What a daily roll also resets.
struct roll_options {
    /// Also zero the week's counter.
    bool new_week = false;
    /// Also zero the month's counter.
    bool new_month = false;
};

/// Per-owner activity bitmaps: today's slots and the last N days as bitfields plus
/// four counters, in one record per owner. Every call is ONE operate() on a
/// ~300-byte record (one round trip). Errors: the store's; PARAMETER_ERROR for a
/// slot or day outside the geometry or a bad owner. A missing record reads as
/// no activity.
template <kv::kv_store Store>
class activity_bitmap {
public:
    /// slots_per_day or days of 0, or more than 2^30 bits, is a broken precondition.
    explicit activity_bitmap(Store& store, activity_bitmap_options options = {})
        : m_store(&store)
        , m_opt(std::move(options)) {
        KVMODEL_ASSERT(m_opt.slots_per_day > 0 && m_opt.slots_per_day <= (1U << 30));
        KVMODEL_ASSERT(m_opt.days > 0 && m_opt.days <= (1U << 30));
    }

    /// The options it was built with.
    const activity_bitmap_options& options() const noexcept { return m_opt; }

    /// The owner's record: (ns, set, owner).
    result<kv::key> key_of(const value& owner) const {
        return kv::key::make(m_opt.ns, m_opt.set, owner);
    }

    /// Records activity at `slot` (minute) of today: raises the slot's bit
    /// and today's bit and adds 1 to every counter, in ONE operate(). Returns
    /// the counters after the increment.
    result<activity_counters> record(const value& owner, std::uint32_t slot) const {
        if (auto e = check_slot(slot, "record")) return *e;
        namespace bo = cdt::bit_ops;
        const cdt::bit_policy create_if_missing{cdt::bit_write_flags::create_only |
                                                cdt::bit_write_flags::no_fail};
        const bytes one{0x80};
        std::vector<kv::operation> ops = {
            kv::op::bit(m_opt.minutes_bin, bo::bit_insert(0, zeros(m_opt.slots_per_day), create_if_missing)),
            kv::op::bit(m_opt.minutes_bin, bo::bit_set(slot, 1, one)),
            kv::op::bit(m_opt.days_bin, bo::bit_insert(0, zeros(m_opt.days), create_if_missing)),
            kv::op::bit(m_opt.days_bin, bo::bit_set(m_opt.days - 1, 1, one)),
            kv::op::add(m_opt.total_bin, value(1)),
            kv::op::add(m_opt.month_bin, value(1)),
            kv::op::add(m_opt.week_bin, value(1)),
            kv::op::add(m_opt.today_bin, value(1)),
            kv::op::read(m_opt.total_bin),
            kv::op::read(m_opt.month_bin),
            kv::op::read(m_opt.week_bin),
            kv::op::read(m_opt.today_bin),
        };
        auto r = operate(owner, ops, m_opt.write);
        if (!r) return r.error();
        return counters_from(r->results, 8, "record");
    }

    /// Whether the owner was active at `slot` today.
    result<bool> was_active(const value& owner, std::uint32_t slot) const {
        if (auto e = check_slot(slot, "was_active")) return *e;
        auto r = read_bit(owner, m_opt.minutes_bin, cdt::bit_ops::bit_count(slot, 1), "was_active");
        if (!r) return r.error();
        return r->has_value() && **r == 1;
    }

    /// Active slots of today in [from, to) (clipped to the day).
    result<std::int64_t> count_active(const value& owner, std::uint32_t from, std::uint32_t to) const {
        to = std::min(to, m_opt.slots_per_day);
        if (from >= to) return std::int64_t{0};
        auto r = read_bit(owner, m_opt.minutes_bin, cdt::bit_ops::bit_count(from, to - from),
                          "count_active");
        if (!r) return r.error();
        return r->value_or(0);
    }

    /// The most recent active slot of today (rscan), or nullopt.
    result<std::optional<std::uint32_t>> last_active_slot(const value& owner) const {
        return position(owner, m_opt.minutes_bin,
                        cdt::bit_ops::bit_rscan(0, m_opt.slots_per_day, true), "last_active_slot");
    }

    /// The first active slot of today (lscan), or nullopt.
    result<std::optional<std::uint32_t>> first_active_slot(const value& owner) const {
        return position(owner, m_opt.minutes_bin,
                        cdt::bit_ops::bit_lscan(0, m_opt.slots_per_day, true), "first_active_slot");
    }

    /// Whether the owner was active `days_ago` days ago (0 = today).
    result<bool> was_active_on(const value& owner, std::uint32_t days_ago) const {
        if (days_ago >= m_opt.days) return false; // beyond the history: unknown = no
        auto r = read_bit(owner, m_opt.days_bin,
                          cdt::bit_ops::bit_count(m_opt.days - 1 - days_ago, 1), "was_active_on");
        if (!r) return r.error();
        return r->has_value() && **r == 1;
    }

    /// Active days among the last n (today included; clipped to the history).
    result<std::int64_t> active_days(const value& owner, std::uint32_t n) const {
        n = std::min(n, m_opt.days);
        if (n == 0) return std::int64_t{0};
        auto r = read_bit(owner, m_opt.days_bin, cdt::bit_ops::bit_count(m_opt.days - n, n),
                          "active_days");
        if (!r) return r.error();
        return r->value_or(0);
    }

    /// The OLDEST active day among the last n, in days ago (lscan over the
    /// last n bits, as the seed does for 90 days), or nullopt.
    result<std::optional<std::uint32_t>> first_active_day(const value& owner, std::uint32_t n) const {
        n = std::min(n, m_opt.days);
        if (n == 0) return std::optional<std::uint32_t>{};
        auto p = position(owner, m_opt.days_bin, cdt::bit_ops::bit_lscan(m_opt.days - n, n, true),
                          "first_active_day");
        if (!p || !p->has_value()) return p;
        return std::optional<std::uint32_t>(n - 1 - **p);
    }

    /// The most recent active day, in days ago (rscan), or nullopt.
    result<std::optional<std::uint32_t>> last_active_day(const value& owner) const {
        auto p = position(owner, m_opt.days_bin, cdt::bit_ops::bit_rscan(0, m_opt.days, true),
                          "last_active_day");
        if (!p || !p->has_value()) return p;
        return std::optional<std::uint32_t>(m_opt.days - 1 - **p);
    }

    /// The owner's counters (all 0 when there is no record).
    result<activity_counters> counters(const value& owner) const {
        std::vector<kv::operation> ops = {kv::op::read(m_opt.total_bin), kv::op::read(m_opt.month_bin),
                                          kv::op::read(m_opt.week_bin), kv::op::read(m_opt.today_bin)};
        auto r = operate(owner, ops, kv::as_write_policy(m_opt.read));
        if (!r) {
            if (r.error().code == status::record_not_found) return activity_counters{};
            return r.error();
        }
        return counters_from(r->results, 0, "counters");
    }

    /// The operations of the daily roll: shift the day history left by one
    /// (today becomes yesterday), clear today's slots and counter, and the
    /// week's / month's counters when asked. Bit ops carry NO_FAIL, so a
    /// record without the bitfields is rolled too.
    std::vector<kv::operation> roll_ops(roll_options r = {}) const {
        namespace bo = cdt::bit_ops;
        const cdt::bit_policy no_fail{cdt::bit_write_flags::no_fail};
        std::vector<kv::operation> ops = {
            kv::op::bit(m_opt.days_bin, bo::bit_lshift(0, m_opt.days, 1, no_fail)),
            kv::op::bit(m_opt.minutes_bin,
                        bo::bit_set(0, m_opt.slots_per_day, zeros(m_opt.slots_per_day), no_fail)),
            kv::op::write(m_opt.today_bin, value(0)),
        };
        if (r.new_week) ops.push_back(kv::op::write(m_opt.week_bin, value(0)));
        if (r.new_month) ops.push_back(kv::op::write(m_opt.month_bin, value(0)));
        return ops;
    }

    /// Rolls one owner's record to the next day in ONE operate(). A missing
    /// record has nothing to roll (no error).
    result<void> roll_day(const value& owner, roll_options r = {}) const {
        kv::write_policy wp = m_opt.write;
        wp.exists = kv::record_exists_action::update_only;
        auto res = operate(owner, roll_ops(r), wp);
        if (!res && res.error().code != status::record_not_found) return res.error();
        return {};
    }

    /// Rolls every owner of the set as a background job (the seed's
    /// background scan with the lshift); await it with wait().
    background_job<Store> roll_day_all(roll_options r = {}) const
        requires kv::kv_queryable<Store>
    {
        background_request req;
        req.ns = m_opt.ns;
        req.set = m_opt.set;
        req.ops = roll_ops(r);
        req.write = m_opt.write;
        req.read = m_opt.read;
        return run_background(*m_store, std::move(req));
    }

private:
    static bytes zeros(std::uint32_t bits) { return bytes((bits + 7) / 8, 0); }

    std::optional<error> check_slot(std::uint32_t slot, const char* what) const {
        if (slot < m_opt.slots_per_day) return std::nullopt;
        return error{status::parameter_error, std::string("activity_bitmap::") + what + ": slot " +
                                                  std::to_string(slot) + " is outside the day's " +
                                                  std::to_string(m_opt.slots_per_day) + " slots"};
    }

    result<kv::record> operate(const value& owner, const std::vector<kv::operation>& ops,
                               const kv::write_policy& wp) const {
        auto k = key_of(owner);
        if (!k) return k.error();
        return m_store->operate(*k, ops, wp);
    }

    /// One bit read; nullopt when the record or the bin is missing.
    result<std::optional<std::int64_t>> read_bit(const value& owner, const std::string& bin,
                                                 cdt::bit_op op, const char* what) const {
        const std::vector<kv::operation> ops = {kv::op::bit(bin, std::move(op))};
        auto r = operate(owner, ops, kv::as_write_policy(m_opt.read));
        if (!r) {
            if (r.error().code == status::record_not_found) return std::optional<std::int64_t>{};
            return error{r.error().code,
                         std::string("activity_bitmap::") + what + ": " + r.error().message};
        }
        const value& v = r->results.at(0);
        if (v.is_nil()) return std::optional<std::int64_t>{};
        if (!v.is_int())
            return error{status::parameter_error,
                         std::string("activity_bitmap::") + what + ": unexpected " + to_string(v)};
        return std::optional<std::int64_t>(v.as_int());
    }

    /// A scan's answer as a position (-1 and a missing bitfield → nullopt).
    result<std::optional<std::uint32_t>> position(const value& owner, const std::string& bin,
                                                  cdt::bit_op op, const char* what) const {
        auto r = read_bit(owner, bin, std::move(op), what);
        if (!r) return r.error();
        if (!r->has_value() || **r < 0) return std::optional<std::uint32_t>{};
        return std::optional<std::uint32_t>(static_cast<std::uint32_t>(**r));
    }

    static result<activity_counters> counters_from(const std::vector<value>& results,
                                                   std::size_t first, const char* what) {
        std::int64_t out[4] = {};
        for (std::size_t i = 0; i < 4; ++i) {
            const value& v = results.at(first + i);
            if (v.is_nil()) continue;
            if (!v.is_int())
                return error{status::bin_type_error, std::string("activity_bitmap::") + what +
                                                         ": counter holds " + to_string(v)};
            out[i] = v.as_int();
        }
        return activity_counters{out[0], out[1], out[2], out[3]};
    }

    Store* m_store;
    activity_bitmap_options m_opt;
};

} // namespace kvmodel::patterns
