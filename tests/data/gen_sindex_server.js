// tests/data/gen_sindex_server.js — loads the secondary-index data sets of
// tests/sim/sindex_server_test.cpp into a real server and prints what the
// server reports per index (sindex-stat entries and used_bytes) as JSON, the
// content of tests/data/sindex_server.json. Each data set is one set
// (`ttl_...`) with one index created BEFORE its records are written (so the
// server inserts the entries in the order written, as the simulator does),
// on a one-node namespace `test`; the sets and indexes are removed at the end.
//   NODE_PATH=<dir>/node_modules node gen_sindex_server.js [host] [port]
// (the official client, aerospike@6.7.1, as tests/node/run.cmake installs it).
'use strict'
const Aerospike = require('aerospike')

const host = process.argv[2] || '127.0.0.1'
const port = Number(process.argv[3] || 3000)

// The record of data set `ds` with user key i (an integer); the simulator's
// test builds the same records (tests/sim/sindex_datasets.hpp).
const datasets = [
  { set: 'ttl_n0', type: 'numeric', collection: 'none', records: 0 },
  { set: 'ttl_n1k', type: 'numeric', collection: 'none', records: 1000 },
  { set: 'ttl_s1k', type: 'string', collection: 'none', records: 1000 },
  { set: 'ttl_n100k', type: 'numeric', collection: 'none', records: 100000 },
  { set: 'ttl_s100k', type: 'string', collection: 'none', records: 100000 },
  { set: 'ttl_l1m', type: 'numeric', collection: 'list', records: 10000, per: 100 },
  { set: 'ttl_mk100k', type: 'string', collection: 'mapkeys', records: 1000, per: 100 },
  { set: 'ttl_mv100k', type: 'numeric', collection: 'mapvalues', records: 1000, per: 100 },
  { set: 'ttl_asc20k', type: 'numeric', collection: 'list', records: 1, per: 20000 },
  { set: 'ttl_mix20k', type: 'numeric', collection: 'list', records: 1, per: 20000, shuffled: true }
]

// A permutation of 0..n-1 from a fixed linear congruential generator (the
// test repeats it: x = x * 6364136223846793005 + 1442695040888963407 mod 2^64,
// swap index (x >> 33) % (i + 1)).
function shuffled (n) {
  const out = Array.from({ length: n }, (_, i) => i)
  let x = 1n
  for (let i = n - 1; i > 0; i--) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn
    const j = Number((x >> 33n) % BigInt(i + 1))
    const t = out[i]; out[i] = out[j]; out[j] = t
  }
  return out
}

function bins (ds, i) {
  if (ds.collection === 'none') return { v: ds.type === 'numeric' ? i : 'v' + i }
  const base = i * ds.per
  const order = ds.shuffled ? shuffled(ds.per) : Array.from({ length: ds.per }, (_, j) => j)
  if (ds.collection === 'list') return { v: order.map(j => base + j) }
  const m = {}
  for (const j of order) {
    if (ds.collection === 'mapkeys') m['k' + (base + j)] = j
    else m['k' + j] = base + j
  }
  return { v: m }
}

const indexType = {
  none: Aerospike.indexType.DEFAULT,
  list: Aerospike.indexType.LIST,
  mapkeys: Aerospike.indexType.MAPKEYS,
  mapvalues: Aerospike.indexType.MAPVALUES
}

async function info (client, cmd) {
  const out = await client.infoAny(cmd)
  return out.split('\t').slice(1).join('\t').trim()
}

async function main () {
  const client = await Aerospike.connect({ hosts: [{ addr: host, port }] })
  const out = { server: await info(client, 'build'), indexes: {} }
  for (const ds of datasets) {
    const index = ds.set.replace('ttl_', 'ttl_ix_')
    const job = await client.createIndex({
      ns: 'test',
      set: ds.set,
      bin: 'v',
      index,
      type: indexType[ds.collection],
      datatype: ds.type === 'numeric' ? Aerospike.indexDataType.NUMERIC : Aerospike.indexDataType.STRING
    })
    await job.wait(200)
    const inflight = 64
    for (let i = 0; i < ds.records; i += inflight) {
      const batch = []
      for (let k = i; k < Math.min(ds.records, i + inflight); k++) {
        batch.push(client.put(new Aerospike.Key('test', ds.set, k), bins(ds, k)))
      }
      await Promise.all(batch)
    }
    const stat = Object.fromEntries((await info(client, 'sindex-stat:namespace=test;indexname=' + index))
      .split(';').map(x => x.split('=')))
    out.indexes[ds.set] = { entries: Number(stat.entries), used_bytes: Number(stat.used_bytes) }
    process.stderr.write(ds.set + ' ' + JSON.stringify(out.indexes[ds.set]) + '\n')
  }
  for (const ds of datasets) {
    await client.indexRemove('test', ds.set.replace('ttl_', 'ttl_ix_'))
    await client.truncate('test', ds.set, 0)
  }
  await client.close()
  console.log(JSON.stringify(out, null, 1))
}

main().catch(e => { console.error(e); process.exit(1) })
