// tests/node/serve_test.js
//
// The official Aerospike Node.js client (npm `aerospike`) against
// `kvmodel serve --nodes 3`: discovery, every command family, the test
// powers, and a node taken down mid-test with the client failing over.
// Run by ctest (tests/node/run.cmake installs the client); by hand:
//   node tests/node/serve_test.js build/tools/kvmodel
// Exit status 0 when every check passes; each failure is printed.
'use strict'
const { startServe } = require('./serve_process')
const net = require('net')
const fs = require('fs')
const assert = require('assert')
const Aerospike = require('aerospike')

const kvmodel = process.argv[2]
const ops = Aerospike.operations
const maps = Aerospike.maps
const lists = Aerospike.lists

// One info command over a raw socket (the test powers need no client).
function info (port, command) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1')
    const body = Buffer.from(command + '\n')
    const head = Buffer.alloc(8)
    head[0] = 2; head[1] = 1
    head.writeUIntBE(body.length, 2, 6)
    s.write(Buffer.concat([head, body]))
    let buf = Buffer.alloc(0)
    s.on('data', d => {
      buf = Buffer.concat([buf, d])
      if (buf.length >= 8 && buf.length >= 8 + buf.readUIntBE(2, 6)) {
        s.end()
        const text = buf.subarray(8, 8 + buf.readUIntBE(2, 6)).toString()
        resolve(text.split('\t').slice(1).join('\t').replace(/\n$/, ''))
      }
    })
    s.on('error', reject)
  })
}

const results = []
async function check (name, fn) {
  try {
    await fn()
    results.push([name, null])
    console.log('ok   ' + name)
  } catch (e) {
    results.push([name, e])
    console.log('FAIL ' + name + ': ' + (e && e.stack ? e.stack : e))
  }
}

async function main () {
  const { proc, ports } = await startServe(kvmodel, ['--nodes', '3'])
  let client
  try {
    client = await Aerospike.connect({
      hosts: ports.slice(0, 1).map(port => ({ addr: '127.0.0.1', port })),
      log: { level: Aerospike.log.OFF },
      policies: { read: { maxRetries: 3, totalTimeout: 2000 }, write: { maxRetries: 3, totalTimeout: 2000 } }
    })
    await check('discovers the 3 nodes from one seed', async () => {
      for (let i = 0; i < 50 && client.getNodes().length < 3; i++) await new Promise(r => setTimeout(r, 100))
      assert.strictEqual(client.getNodes().length, 3)
    })
    const key = i => new Aerospike.Key('test', 'node', 'k' + i)
    await check('put / get / exists / delete / touch', async () => {
      await client.put(key(0), { i: 1, f: 1.5, s: 'x', b: Buffer.from([1, 2]), l: [1, 'a'], m: { a: 1 } })
      const r = await client.get(key(0))
      assert.deepStrictEqual(r.bins, { i: 1, f: 1.5, s: 'x', b: Buffer.from([1, 2]), l: [1, 'a'], m: { a: 1 } })
      assert.strictEqual(r.gen, 1)
      const sel = await client.select(key(0), ['i', 's'])
      assert.deepStrictEqual(sel.bins, { i: 1, s: 'x' })
      assert.strictEqual(await client.exists(key(0)), true)
      await client.operate(key(0), [ops.touch()])
      assert.strictEqual((await client.get(key(0))).gen, 2)
      await client.remove(key(0))
      assert.strictEqual(await client.exists(key(0)), false)
      await assert.rejects(client.get(key(0)), e => e.code === Aerospike.status.ERR_RECORD_NOT_FOUND)
    })
    await check('write policies: create-only, generation, TTL', async () => {
      await client.put(key(1), { a: 1 })
      await assert.rejects(client.put(key(1), { a: 2 }, null, { exists: Aerospike.policy.exists.CREATE }),
        e => e.code === Aerospike.status.ERR_RECORD_EXISTS)
      await assert.rejects(client.put(key(1), { a: 2 }, { gen: 7 }, { gen: Aerospike.policy.gen.EQ }),
        e => e.code === Aerospike.status.ERR_RECORD_GENERATION)
      await client.put(key(1), { a: 3 }, { ttl: 100 })
      const r = await client.get(key(1))
      assert.ok(r.ttl > 95 && r.ttl <= 100, 'ttl ' + r.ttl)
      await info(ports[1], 'kvmodel-clock-advance:ms=101000')
      await assert.rejects(client.get(key(1)), e => e.code === Aerospike.status.ERR_RECORD_NOT_FOUND)
    })
    await check('operate: incr, append, list and map ops with context', async () => {
      await client.put(key(2), { n: 1, s: 'a' })
      const r = await client.operate(key(2), [
        ops.incr('n', 4), ops.append('s', 'bc'), ops.read('n'), ops.read('s'),
        lists.append('l', 3), lists.appendItems('l', [1, 2]), lists.sort('l', 0),
        maps.putItems('m', { a: 3, b: 1, c: 2 }),
        maps.getByRank('m', -1, maps.returnType.KEY),
        maps.put('m', 'z', 9).withContext(ctx => ctx.addMapKeyCreate('inner'))
      ])
      assert.strictEqual(r.bins.n, 5)
      assert.strictEqual(r.bins.s, 'abc')
      const g = await client.get(key(2))
      assert.deepStrictEqual(g.bins.l, [1, 2, 3])
      assert.deepStrictEqual(g.bins.m, { a: 3, b: 1, c: 2, inner: { z: 9 } })
      const kv = await client.operate(key(2), [maps.getByValueRange('m', 1, 3, maps.returnType.KEY_VALUE)])
      // KEY_VALUE comes as a map led by the PRESERVE_ORDER flag, which the
      // client decodes as a flat [key, value, ...] list, as from the server.
      assert.deepStrictEqual(kv.bins.m, ['b', 1, 'c', 2])
      await assert.rejects(client.operate(key(2), [ops.incr('s', 1)]),
        e => e.code === Aerospike.status.ERR_BIN_INCOMPATIBLE_TYPE)
    })
    await check('operate: bit ops', async () => {
      const bits = Aerospike.bitwise
      await client.put(key(4), { b: Buffer.from([0b00000101, 0xff]) })
      await client.operate(key(4), [bits.set('b', 0, 8, Buffer.from([0x80])), bits.get('b', 0, 8)])
      const g = await client.get(key(4))
      assert.deepStrictEqual(g.bins.b, Buffer.from([0x80, 0xff]))
      assert.strictEqual((await client.operate(key(4), [bits.getInt('b', 8, 8, false)])).bins.b, 255)
      // (bits.lscan of client 6.7.1 sends an rscan: src/main/bit_operations.cc)
      assert.strictEqual((await client.operate(key(4), [bits.rscan('b', 1, 15, true)])).bins.b, 14)
    })
    await check('compressed commands (policy compress) are answered', async () => {
      await client.put(key(5), { s: 'x'.repeat(2000) }, null, { compress: true })
      const r = await client.get(key(5), { compress: true })
      assert.strictEqual(r.bins.s.length, 2000)
    })
    await check('batch reads: get, select, exists, operate in one request', async () => {
      for (let i = 0; i < 20; i++) await client.put(key(300 + i), { v: i, m: { a: i } })
      const keys = []
      for (let i = 0; i < 22; i++) keys.push(key(300 + i))
      const got = await client.batchGet(keys)
      assert.strictEqual(got.length, 22)
      for (let i = 0; i < 20; i++) assert.deepStrictEqual(got[i].record.bins, { v: i, m: { a: i } })
      assert.strictEqual(got[20].status, Aerospike.status.ERR_RECORD_NOT_FOUND)
      const ex = await client.batchExists(keys)
      assert.strictEqual(ex.filter(r => r.status === Aerospike.status.OK).length, 20)
      const sel = await client.batchSelect(keys.slice(0, 5), ['v'])
      for (let i = 0; i < 5; i++) assert.deepStrictEqual(sel[i].record.bins, { v: i })
      const rd = await client.batchRead(keys.slice(0, 3).map(k => ({
        type: Aerospike.batchType.BATCH_READ, key: k, ops: [maps.getByKey('m', 'a', maps.returnType.VALUE)]
      })))
      for (let i = 0; i < 3; i++) assert.deepStrictEqual(rd[i].record.bins, { m: i })
    })
    await check('scan and secondary-index query by partition', async () => {
      const seen = []
      const scan = client.scan('test', 'scanset')
      for (let i = 0; i < 30; i++) await client.put(new Aerospike.Key('test', 'scanset', i), { n: i })
      await new Promise((resolve, reject) => {
        const s = scan.foreach()
        s.on('data', r => seen.push(r.bins.n))
        s.on('error', reject)
        s.on('end', resolve)
      })
      assert.deepStrictEqual(seen.sort((a, b) => a - b), [...Array(30).keys()])
      await (await client.createIntegerIndex({ ns: 'test', set: 'scanset', bin: 'n', index: 'n_idx' })).wait(10)
      const q = client.query('test', 'scanset')
      q.where(Aerospike.filter.range('n', 10, 14))
      const rs = await q.results()
      assert.deepStrictEqual(rs.map(r => r.bins.n).sort((a, b) => a - b), [10, 11, 12, 13, 14])
    })
    await check('scan with a filter expression; paged scan resumes by partition', async () => {
      const exp = Aerospike.exp
      const scan = client.scan('test', 'scanset')
      const rs = await scan.results({ filterExpression: exp.ge(exp.binInt('n'), exp.int(25)) })
      assert.deepStrictEqual(rs.map(r => r.bins.n).sort((a, b) => a - b), [25, 26, 27, 28, 29])
      // Pages of 7: each resumes where the last stopped (the client sends
      // the partitions not done with their last digests), no record twice.
      const paged = client.scan('test', 'scanset', { paginate: true })
      const got = []
      let pages = 0
      do {
        const page = await paged.results({ maxRecords: 7 })
        assert.ok(page.length <= 7, 'page of ' + page.length)
        got.push(...page.map(r => r.bins.n))
        pages++
      } while (paged.hasNextPage() && pages < 20)
      assert.deepStrictEqual(got.sort((a, b) => a - b), [...Array(30).keys()])
      assert.ok(pages >= 5, pages + ' pages')
    })
    await check('HLL ops: add, count, describe, union', async () => {
      const hll = Aerospike.hll
      const k = new Aerospike.Key('test', 'hllset', 'h')
      const r = await client.operate(k, [hll.add('h', ['a', 'b', 'c', 'a'], 8)])
      assert.strictEqual(r.bins.h, 3)
      assert.strictEqual((await client.operate(k, [hll.getCount('h')])).bins.h, 3)
      assert.deepStrictEqual((await client.operate(k, [hll.describe('h')])).bins.h, [8, 0])
      const other = (await client.get(k)).bins.h
      assert.ok(Buffer.isBuffer(other) || other instanceof Object, 'the sketch comes back')
      const u = await client.operate(k, [hll.getUnionCount('h', [other])])
      assert.strictEqual(u.bins.h, 3)
    })
    await check('stats and reset powers answer', async () => {
      const stats = JSON.parse(await info(ports[0], 'kvmodel-stats'))
      assert.ok(stats, 'stats JSON')
      assert.strictEqual(await info(ports[0], 'kvmodel-stats-reset'), 'ok')
    })
    await check('1,000 concurrent connections each get their answer', async () => {
      const answers = await Promise.all([...Array(1000).keys()].map(i => info(ports[i % 3], 'build')))
      assert.strictEqual(answers.filter(a => a === '8.1.2.0').length, 1000)
    })
    await check('garbage on a connection closes it; the node keeps serving', async () => {
      await new Promise((resolve, reject) => {
        const s = net.connect(ports[0], '127.0.0.1')
        s.on('connect', () => s.write(Buffer.from('GET / HTTP/1.1\r\n\r\n')))
        s.on('close', resolve)
        s.on('error', e => e.code === 'ECONNRESET' ? resolve() : reject(e))
      })
      // A header announcing more than the server's 128 MiB: closed at once.
      await new Promise((resolve, reject) => {
        const s = net.connect(ports[0], '127.0.0.1')
        const head = Buffer.alloc(8)
        head[0] = 2; head[1] = 3
        head.writeUIntBE(128 * 1024 * 1024 + 1, 2, 6)
        s.on('connect', () => s.write(head))
        s.on('close', resolve)
        s.on('error', e => e.code === 'ECONNRESET' ? resolve() : reject(e))
      })
      // 100 connections announcing 100 MiB each and sending 10 bytes: the
      // server holds what it was sent, and keeps serving.
      const held = []
      for (let i = 0; i < 100; i++) {
        const s = net.connect(ports[1], '127.0.0.1')
        const head = Buffer.alloc(18)
        head[0] = 2; head[1] = 3
        head.writeUIntBE(100 * 1024 * 1024, 2, 6)
        s.on('error', () => {})
        s.write(head)
        held.push(s)
      }
      assert.strictEqual(await info(ports[1], 'build'), '8.1.2.0')
      const status = `/proc/${proc.pid}/status`
      if (fs.existsSync(status)) {
        const rss = Number(fs.readFileSync(status, 'utf8').match(/VmRSS:\s+(\d+) kB/)[1])
        assert.ok(rss < 1024 * 1024, `resident ${rss} kB after 100 x 100 MiB announced`)
      }
      held.forEach(s => s.destroy())
      assert.strictEqual(await info(ports[0], 'build'), '8.1.2.0')
    })
    await check('a node taken down mid-test: the client fails over', async () => {
      for (let i = 0; i < 200; i++) await client.put(key(100 + i), { v: i })
      assert.strictEqual(await info(ports[0], 'kvmodel-node-down:node=2'), 'ok')
      for (let i = 0; i < 50 && client.getNodes().length > 2; i++) await new Promise(r => setTimeout(r, 100))
      assert.strictEqual(client.getNodes().length, 2)
      for (let i = 0; i < 200; i++) assert.strictEqual((await client.get(key(100 + i))).bins.v, i)
      for (let i = 0; i < 200; i++) await client.put(key(100 + i), { v: i + 1 })
      assert.strictEqual(await info(ports[0], 'kvmodel-node-up:node=2'), 'ok')
      for (let i = 0; i < 50 && client.getNodes().length < 3; i++) await new Promise(r => setTimeout(r, 100))
      assert.strictEqual(client.getNodes().length, 3)
      for (let i = 0; i < 200; i++) assert.strictEqual((await client.get(key(100 + i))).bins.v, i + 1)
    })
    await check('an injected status reaches the client', async () => {
      await info(ports[0], 'kvmodel-fault:kind=status;code=14;times=1')
      await assert.rejects(client.put(key(3), { a: 1 }, null, { maxRetries: 0 }),
        e => e.code === Aerospike.status.ERR_RECORD_BUSY)
      await client.put(key(3), { a: 1 })
    })
  } finally {
    if (client) await client.close()
    const exited = new Promise(resolve => proc.on('exit', (code, signal) => resolve([code, signal])))
    proc.kill('SIGTERM')
    await check('SIGTERM stops the server cleanly (exit status 0)', async () => {
      assert.deepStrictEqual(await exited, [0, null])
    })
  }
  const failed = results.filter(r => r[1])
  console.log(`${results.length - failed.length} of ${results.length} checks passed`)
  process.exit(failed.length ? 1 : 0)
}

main().catch(e => { console.error(e); process.exit(1) })
