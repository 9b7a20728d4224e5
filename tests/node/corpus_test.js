// tests/node/corpus_test.js
//
// The recorded bit-op corpora (tests/adapters/data/*_suite_bit.json beside
// their .server.jsonl: what Aerospike 8.1.2 answered) replayed through the
// official Node.js client against `kvmodel serve`, compared with the
// server's answers.
//
// What the Node client lets us compare exactly, and how:
//  * The client returns an operate() answer as one JS object keyed by bin
//    name, so of several ops on one bin only the last result survives. A
//    case the server answered without error is therefore replayed one op per
//    operate() from the initial record (the same sequence of states), and
//    every op's result is compared, then the final bin.
//  * A case the server failed is sent as one operate(); the client's error
//    code must be the server's and the bin must be left as it was.
//  * bit_count and bit_lscan are not sent (see toOperation).
//  * Integers beyond 2^53 lose precision in JSON.parse and in the client
//    (JS numbers): such results are counted as not comparable, and a case
//    with such an argument is skipped.
// The list and map corpora go through the client in cdt_corpus_test.js;
// every corpus is compared exactly, through the same wire codec, by
// tests/tools/serve_corpus_test.cpp.
//   node tests/node/corpus_test.js build/tools/kvmodel
'use strict'
const { startServe } = require('./serve_process')
const fs = require('fs')
const path = require('path')
const Aerospike = require('aerospike')

const kvmodel = process.argv[2]
const bits = Aerospike.bitwise
const dataDir = path.join(__dirname, '..', 'adapters', 'data')
const suites = ['client_suite_bit', 'go_suite_bit', 'java_suite_bit', 'python_suite_bit']

const writeFlags = { CREATE_ONLY: 1, UPDATE_ONLY: 2, NO_FAIL: 4, PARTIAL: 8 }
const resizeFlags = { FROM_FRONT: 1, GROW_ONLY: 2, SHRINK_ONLY: 4 }
const overflow = { FAIL: 0, SATURATE: 2, WRAP: 4 }

function flagsOf (f, names) {
  if (f === undefined) return 0
  if (typeof f === 'number') return f
  return f.reduce((acc, n) => acc | names[n], 0)
}

const blob = v => Buffer.from(v.$bytes, 'hex')

// One cdt-json bit op as a Node client operation, or null when it has no
// client call: bit_count has none, and aerospike@6.7.1 sends bits.lscan as
// an rscan (src/main/bit_operations.cc, add_bit_lscan_op), so neither is
// sent. Both only read: a case the server answered without error skips
// them (the states between the other ops are the same); a failed case that
// holds one is skipped.
function toOperation (o, bin) {
  const a = o.args || {}
  const flags = flagsOf(o.flags !== undefined ? o.flags : a.flags, writeFlags)
  const withPolicy = op => flags ? op.withPolicy(new Aerospike.policy.BitwisePolicy({ writeFlags: flags })) : op
  switch (o.op) {
    case 'bit_resize': return withPolicy(bits.resize(bin, a.byte_size, flagsOf(a.resize_flags, resizeFlags)))
    case 'bit_insert': return withPolicy(bits.insert(bin, a.byte_offset, blob(a.value)))
    case 'bit_remove': return withPolicy(bits.remove(bin, a.byte_offset, a.byte_size))
    case 'bit_set': return withPolicy(bits.set(bin, a.bit_offset, a.bit_size, blob(a.value)))
    case 'bit_or': return withPolicy(bits.or(bin, a.bit_offset, a.bit_size, blob(a.value)))
    case 'bit_xor': return withPolicy(bits.xor(bin, a.bit_offset, a.bit_size, blob(a.value)))
    case 'bit_and': return withPolicy(bits.and(bin, a.bit_offset, a.bit_size, blob(a.value)))
    case 'bit_not': return withPolicy(bits.not(bin, a.bit_offset, a.bit_size))
    case 'bit_lshift': return withPolicy(bits.lshift(bin, a.bit_offset, a.bit_size, a.shift))
    case 'bit_rshift': return withPolicy(bits.rshift(bin, a.bit_offset, a.bit_size, a.shift))
    case 'bit_add':
    case 'bit_subtract': {
      const op = (o.op === 'bit_add' ? bits.add : bits.subtract)(bin, a.bit_offset, a.bit_size, a.value, !!a.signed)
      if (a.action !== undefined) op.onOverflow(overflow[a.action])
      return withPolicy(op)
    }
    case 'bit_set_int': {
      // No named call, but the native op table has BIT_SET_INT (12th, as
      // BIT_RESIZE is the 0th): the same operation object with its code.
      const op = bits.set(bin, a.bit_offset, a.bit_size, Buffer.alloc(0))
      op.op = 12 ^ bits.resize(bin, 0).op
      op.value = a.value
      return withPolicy(op)
    }
    case 'bit_get': return bits.get(bin, a.bit_offset, a.bit_size)
    case 'bit_rscan': return bits.rscan(bin, a.bit_offset, a.bit_size, !!a.value)
    case 'bit_get_int': return bits.getInt(bin, a.bit_offset, a.bit_size, !!a.signed)
    default: return null
  }
}

// Whether the client's value v is the server's recorded value e; undefined
// when it cannot be compared exactly.
function same (v, e) {
  if (e === null) return v === null || v === undefined
  if (typeof e === 'number') {
    if (!Number.isSafeInteger(e)) return undefined
    return typeof v === 'number' ? v === e : (typeof v === 'bigint' ? v === BigInt(e) : false)
  }
  if (e && e.$bytes !== undefined) return Buffer.isBuffer(v) && v.toString('hex') === e.$bytes
  return undefined
}

async function main () {
  const { proc, ports: [port] } = await startServe(kvmodel)
  const client = await Aerospike.connect({ hosts: [{ addr: '127.0.0.1', port }], log: { level: Aerospike.log.OFF } })
  let compared = 0; let notComparable = 0; let skipped = 0; let notSent = 0; const failures = []
  try {
    for (const suite of suites) {
      const cases = JSON.parse(fs.readFileSync(path.join(dataDir, suite + '.json'), 'utf8'))
      const answers = fs.readFileSync(path.join(dataDir, suite + '.server.jsonl'), 'utf8').split('\n').filter(l => l).map(l => JSON.parse(l))
      for (let i = 0; i < cases.length; i++) {
        const c = cases[i]; const want = answers[i]
        const bin = c.bin_name || 'bin'
        const ops = c.ops.map(o => toOperation(o, bin))
        const failed = want.invalid ? -1 : want.results.findIndex(r => r && r.error !== undefined)
        const unsent = ops.some((o, k) => o === null && !(c.ops[k].op === 'bit_count' || c.ops[k].op === 'bit_lscan'))
        // An argument beyond 2^53 is not what the server got once JSON.parse
        // and the client's JS numbers have it.
        const unsafe = c.ops.some(o => Object.values(o.args || {}).some(v => typeof v === 'number' && !Number.isSafeInteger(v)))
        if (unsafe || unsent || (failed >= 0 && ops.some(o => o === null)) || c.bin_type !== 'bytes' || want.invalid) { skipped++; continue }
        const key = new Aerospike.Key('test', 'cdt', c.id)
        const reset = async () => {
          try { await client.remove(key) } catch (e) { if (e.code !== Aerospike.status.ERR_RECORD_NOT_FOUND) throw e }
          if (c.record_exists === false) return
          await client.put(key, c.initial ? { [bin]: blob(c.initial) } : { other: 1 })
        }
        const finalBin = async () => {
          try { return (await client.get(key)).bins[bin] ?? null } catch (e) { if (e.code === Aerospike.status.ERR_RECORD_NOT_FOUND) return null; throw e }
        }
        const mismatch = what => failures.push(`${suite} ${c.id}: ${what}`)
        await reset()
        if (failed >= 0) {
          let code = 0
          try { await client.operate(key, ops) } catch (e) { code = e.code }
          if (code !== want.results[failed].code) mismatch(`error ${code}, server ${want.results[failed].code}`)
        } else {
          for (let k = 0; k < ops.length; k++) {
            if (ops[k] === null) { notSent++; continue }
            let got
            try { got = (await client.operate(key, [ops[k]])).bins[bin] } catch (e) { mismatch(`op ${k} failed ${e.code}`); break }
            const s = same(got, want.results[k])
            if (s === undefined) notComparable++
            else if (!s) mismatch(`op ${k} (${c.ops[k].op}) ${Buffer.isBuffer(got) ? got.toString('hex') : got}, server ${JSON.stringify(want.results[k])}`)
            else compared++
          }
        }
        const s = same(await finalBin(), want.final)
        if (s === undefined) notComparable++
        else if (!s) mismatch(`final bin differs: server ${JSON.stringify(want.final)}`)
        else compared++
      }
    }
  } finally {
    await client.close()
    proc.kill('SIGTERM')
  }
  console.log(`bit corpora through the Node client: ${compared} results as the server's, ` +
              `${failures.length} different, ${notComparable} not comparable (beyond 2^53), ` +
              `${notSent} count / lscan reads not sent, ${skipped} cases skipped`)
  for (const f of failures.slice(0, 20)) console.log('FAIL ' + f)
  // Most cases must have been compared: the test fails if the replay silently skips.
  if (failures.length > 0 || compared < 10000) process.exit(1)
}

main().catch(e => { console.error(e); process.exit(1) })
