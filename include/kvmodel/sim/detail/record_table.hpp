// kvmodel/sim/detail/record_table.hpp
//
// A partition's records by digest: open addressing with linear probing over
// 16-byte slots (8 bytes of the digest and the record's address), at most
// half full; each record is allocated on its own, so its address is stable
// until it is erased. The header is 16 bytes, so a namespace's 4096 headers
// fill 64 KiB, small enough to stay cached, and prefetch() lets a command
// ask for its slot's line before it holds the partition's lock.
//
// Why not std::unordered_map: a lookup there reads the map's header, its
// bucket, the node before the bucket's first one and then the node, each
// load waiting for the one before; with records out of cache (a partition is
// touched once in thousands of commands) those are four misses in a row.
// Here it is the slot's line (the digest's bits give its address) and the
// record, and a record whose 8 digest bytes in the slot differ is never read.
//
// Erasing shifts the rest of the probe run back (no tombstones), so a table
// stays as fast after deletes as a fresh one. Iteration runs in slot order,
// which depends only on the records held and the order they came in.
// Not thread-safe: one per partition, used under the partition's lock —
// except prefetch(), which may race with a resize (the header's fields are
// atomics for it, read and written relaxed) and at worst prefetches a line
// in vain.
// Complexity: find, emplace and erase O(1) expected; iteration O(capacity).
#pragma once

#include <kvmodel/config.hpp> // KVMODEL_FORCE_INLINE
#include <kvmodel/kv/digest.hpp>
#include <kvmodel/sim/detail/record_engine.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

namespace kvmodel::sim::detail {

class record_table {
public:
    using value_type = std::pair<const kv::digest, entry>;

    record_table() = default;
    record_table(const record_table&) = delete;
    record_table& operator=(const record_table&) = delete;
    record_table(record_table&&) = delete;
    record_table& operator=(record_table&&) = delete;
    ~record_table() {
        slot* const slots = this->slots();
        for (std::size_t i = 0, n = capacity(); i < n; ++i)
            delete slots[i].node; // NOLINT(*-owning-memory)
        delete[] slots;           // NOLINT(*-owning-memory)
    }

    std::size_t size() const noexcept { return m_size; }
    bool empty() const noexcept { return m_size == 0; }

    /// The record of digest d, or nullptr.
    entry* find(const kv::digest& d) noexcept {
        slot* s = find_slot(d);
        return s != nullptr ? &s->node->second : nullptr;
    }
    const entry* find(const kv::digest& d) const noexcept {
        const slot* s = find_slot(d);
        return s != nullptr ? &s->node->second : nullptr;
    }

    /// Asks for the cache line of d's home slot. Needs no lock.
    void prefetch(const kv::digest& d) const noexcept {
        const slot* const slots = this->slots();
        if (slots != nullptr)
            __builtin_prefetch(&slots[static_cast<std::uint32_t>(hash(d)) & mask()]);
    }

    /// Adds the record of digest d, which must not be present.
    entry& emplace(const kv::digest& d, entry&& e) {
        if ((m_size + 1) * 2 > capacity())
            grow();
        auto* const node = new value_type(d, std::move(e)); // NOLINT(*-owning-memory)
        place(hash(d), node); // noexcept: the table owns node from here
        entry& out = node->second;
        ++m_size;
        return out;
    }

    /// Erases the record of digest d, if present.
    void erase(const kv::digest& d) noexcept {
        slot* s = find_slot(d);
        if (s == nullptr)
            return;
        delete s->node; // NOLINT(*-owning-memory)
        s->node = nullptr;
        --m_size;
        close_gap(static_cast<std::uint32_t>(s - slots()));
    }

    /// Erases the records for which pred(digest, entry) is true (called
    /// once per record, in iteration order); how many.
    template <class Pred>
    std::size_t erase_if(Pred&& pred) {
        // The doomed digests packed back to back in a string (whose members
        // every file compiles anyway), not a vector<digest>: one vector type
        // less per header-only file. Erased after the walk: erasing moves
        // records back within their probe run.
        std::string doomed;
        for (value_type& r : *this)
            if (pred(r.first, r.second))
                doomed.append(reinterpret_cast<const char*>(r.first.data()), width);
        return erase_packed(doomed);
    }

private:
    struct slot {
        std::uint64_t hash = 0;
        /// Owned (new / delete; a raw pointer, not a unique_ptr: one
        /// smart-pointer type less in every header-only file); null = empty.
        value_type* node = nullptr;
    };

public:
    template <class Value>
    class basic_iterator {
    public:
        using value_type = Value;
        using difference_type = std::ptrdiff_t;

        basic_iterator() = default;
        Value& operator*() const noexcept { return *m_at->node; }
        Value* operator->() const noexcept { return m_at->node; }
        basic_iterator& operator++() noexcept {
            ++m_at;
            skip();
            return *this;
        }
        basic_iterator operator++(int) noexcept {
            basic_iterator old = *this;
            ++*this;
            return old;
        }
        friend bool operator==(const basic_iterator& a, const basic_iterator& b) noexcept {
            return a.m_at == b.m_at;
        }

    private:
        friend class record_table;
        basic_iterator(const slot* at, const slot* end) noexcept
            : m_at(at)
            , m_end(end) {
            skip();
        }
        void skip() noexcept {
            while (m_at != m_end && !m_at->node)
                ++m_at;
        }
        const slot* m_at = nullptr;
        const slot* m_end = nullptr;
    };
    using iterator = basic_iterator<value_type>;
    using const_iterator = basic_iterator<const value_type>;

    iterator begin() noexcept { return {slots(), slots() + capacity()}; }
    iterator end() noexcept { return {slots() + capacity(), slots() + capacity()}; }
    const_iterator begin() const noexcept { return {slots(), slots() + capacity()}; }
    const_iterator end() const noexcept { return {slots() + capacity(), slots() + capacity()}; }

private:
    static constexpr std::size_t min_capacity = 8;
    /// Bytes of a digest.
    static constexpr std::size_t width = std::tuple_size_v<kv::digest>;

    // Erases the records of the digests packed in `digests`; how many.
    std::size_t erase_packed(const std::string& digests) noexcept {
        kv::digest d;
        const std::size_t n = digests.size() / width;
        for (std::size_t i = 0; i < n; ++i) {
            std::memcpy(d.data(), digests.data() + i * width, width);
            erase(d);
        }
        return n;
    }

    // Bytes 8..15: RIPEMD-160 output is uniform there, and the partition id
    // (bytes 0..1) is the same for every record of a table.
    static std::uint64_t hash(const kv::digest& d) noexcept { return kv::digest_hash{}(d); }

    // Under the lock the header's atomics are only read relaxed: plain loads.
    KVMODEL_FORCE_INLINE slot* slots() const noexcept {
        return m_slots.load(std::memory_order_relaxed);
    }
    std::uint32_t mask() const noexcept { return m_mask.load(std::memory_order_relaxed); }
    std::size_t capacity() const noexcept { return slots() ? std::size_t{mask()} + 1 : 0; }

    // The slot holding d's record, or nullptr.
    slot* find_slot(const kv::digest& d) const noexcept {
        if (m_size == 0)
            return nullptr;
        const std::uint64_t h = hash(d);
        slot* const slots = this->slots();
        const std::uint32_t mask = this->mask();
        for (std::uint32_t i = static_cast<std::uint32_t>(h) & mask;; i = (i + 1) & mask) {
            slot& s = slots[i];
            if (!s.node)
                return nullptr;
            if (s.hash == h && s.node->first == d)
                return &s;
        }
    }

    void place(std::uint64_t h, value_type* node) noexcept {
        slot* const slots = this->slots();
        const std::uint32_t mask = this->mask();
        std::uint32_t i = static_cast<std::uint32_t>(h) & mask;
        while (slots[i].node)
            i = (i + 1) & mask;
        slots[i].hash = h;
        slots[i].node = node;
    }

    void grow() {
        const std::size_t old_capacity = capacity();
        const std::size_t n = old_capacity == 0 ? min_capacity : old_capacity * 2;
        slot* const old = m_slots.load(std::memory_order_relaxed);
        m_slots.store(new slot[n], std::memory_order_relaxed); // NOLINT(*-owning-memory)
        m_mask.store(static_cast<std::uint32_t>(n - 1), std::memory_order_relaxed);
        // Nothing below throws (place and the moves are noexcept): a plain
        // delete[] frees the old array, no unique_ptr<slot[]> instantiated.
        for (std::size_t i = 0; i < old_capacity; ++i)
            if (old[i].node)
                place(old[i].hash, old[i].node);
        delete[] old; // NOLINT(*-owning-memory)
    }

    // Slot `hole` was just emptied: moves back the later records of its
    // probe run that may live there, so every record stays reachable from
    // its home slot without passing an empty one.
    void close_gap(std::uint32_t hole) noexcept {
        slot* const slots = this->slots();
        const std::uint32_t mask = this->mask();
        for (std::uint32_t j = (hole + 1) & mask; slots[j].node; j = (j + 1) & mask) {
            const std::uint32_t home = static_cast<std::uint32_t>(slots[j].hash) & mask;
            // The record at j stays if its home lies cyclically in (hole, j].
            if (((j - home) & mask) < ((j - hole) & mask))
                continue;
            slots[hole] = slots[j];
            slots[j].node = nullptr;
            hole = j;
        }
    }

    /// Owned (new[] / delete[]); atomic for prefetch() only.
    std::atomic<slot*> m_slots{nullptr};
    std::atomic<std::uint32_t> m_mask{0};
    std::uint32_t m_size = 0;
};

} // namespace kvmodel::sim::detail
