// kvmodel/patterns/detail/store_ref.hpp
//
// A kv_store seen through its four calls the patterns make (get, operate,
// remove, batch_get), type-erased: the patterns' logic that does not depend
// on the caller's types is then ordinary functions on store_ref, compiled
// once (once per program with kvmodel::compiled), while the template layer
// over a Store only wraps the store and encodes / decodes the caller's
// types. One indirect call per command: nothing next to a round trip.
#pragma once

#include <kvmodel/core/result.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/store.hpp>

#include <concepts>
#include <span>
#include <vector>

namespace kvmodel::patterns::detail {

/// A reference to a kv_store: the store's own get, operate, remove and
/// kv::batch_get (its member when it has one). Copyable; the store must
/// outlive it. Itself a kv_store.
class store_ref {
public:
    /// Refers to `store` (a store_ref itself is copied, not wrapped).
    template <kv::kv_store Store>
        requires(!std::same_as<Store, store_ref>)
    explicit store_ref(Store& store) noexcept
        : m_store(&store)
        , m_calls(&calls_of<Store>) {}

    /// store.get(k, rp).
    result<kv::record> get(const kv::key& k, const kv::read_policy& rp) const {
        return m_calls->get(m_store, k, rp);
    }
    /// store.operate(k, ops, wp).
    result<kv::record> operate(const kv::key& k, std::span<const kv::operation> ops,
                               const kv::write_policy& wp) const {
        return m_calls->operate(m_store, k, ops, wp);
    }
    /// store.remove(k, wp).
    result<void> remove(const kv::key& k, const kv::write_policy& wp) const {
        return m_calls->remove(m_store, k, wp);
    }
    /// kv::batch_get(store, keys, rp).
    std::vector<result<kv::record>> batch_get(std::span<const kv::key> keys, const kv::read_policy& rp) const {
        return m_calls->batch_get(m_store, keys, rp);
    }

private:
    struct calls {
        result<kv::record> (*get)(void*, const kv::key&, const kv::read_policy&);
        result<kv::record> (*operate)(void*, const kv::key&, std::span<const kv::operation>,
                                      const kv::write_policy&);
        result<void> (*remove)(void*, const kv::key&, const kv::write_policy&);
        std::vector<result<kv::record>> (*batch_get)(void*, std::span<const kv::key>, const kv::read_policy&);
    };

    // Named functions, not lambdas: GCC mangles lambdas in a variable
    // template's initializer without the template's arguments, so two stores'
    // tables would share (and the linker merge) one set of functions.
    template <class Store>
    static result<kv::record> get_of(void* s, const kv::key& k, const kv::read_policy& rp) {
        return static_cast<Store*>(s)->get(k, rp);
    }
    template <class Store>
    static result<kv::record> operate_of(void* s, const kv::key& k, std::span<const kv::operation> ops,
                                         const kv::write_policy& wp) {
        return static_cast<Store*>(s)->operate(k, ops, wp);
    }
    template <class Store>
    static result<void> remove_of(void* s, const kv::key& k, const kv::write_policy& wp) {
        return static_cast<Store*>(s)->remove(k, wp);
    }
    template <class Store>
    static std::vector<result<kv::record>> batch_get_of(void* s, std::span<const kv::key> keys,
                                                        const kv::read_policy& rp) {
        return kv::batch_get(*static_cast<Store*>(s), keys, rp);
    }
    template <class Store>
    static constexpr calls calls_of{&get_of<Store>, &operate_of<Store>, &remove_of<Store>, &batch_get_of<Store>};

    void* m_store;
    const calls* m_calls;
};

} // namespace kvmodel::patterns::detail
