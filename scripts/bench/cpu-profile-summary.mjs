// Summarises a V8 CPU profile (node --cpu-prof, or BENCH_CPU_PROFILE_DIR of run-distributed): the
// share of the thread each function took by itself and with what it called, over the whole profile
// or a window of it. Not a test: it asserts nothing.
//   node scripts/bench/cpu-profile-summary.mjs FILE.cpuprofile [--last SECONDS] [--skip-last SECONDS] [--top N]
// --last 10 --skip-last 1: the ten seconds before the last second (a load that ended just before the
// process was stopped).
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    last: { type: 'string' },
    'skip-last': { type: 'string', default: '0' },
    top: { type: 'string', default: '30' },
  },
})
if (positionals.length !== 1) {
  process.stderr.write(
    'usage: cpu-profile-summary.mjs FILE.cpuprofile [--last S] [--skip-last S] [--top N]\n',
  )
  process.exit(2)
}
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'))
const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
const parentOf = new Map()
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id)

const packageOf = (url) =>
  url.includes('/node_modules/.pnpm/')
    ? url.replace(/.*\/node_modules\/\.pnpm\/([^/]+)\/.*/, '$1')
    : url.replace(/.*\/(packages|services)\//, '$1/')
const nameOf = (node) => {
  const frame = node.callFrame
  const where = frame.url ? `${packageOf(frame.url).split('/').slice(-1)[0]}:${frame.lineNumber + 1}` : ''
  return `${frame.functionName || '(anonymous)'} ${where}`.trim()
}

// sample times from the start, in µs
let at = 0
const sampleTimes = profile.timeDeltas.map((delta) => (at += delta))
const end = at
const from =
  values.last === undefined ? 0 : end - Number(values.last) * 1e6 - Number(values['skip-last']) * 1e6
const to = end - Number(values['skip-last']) * 1e6

const self = new Map()
const inclusive = new Map()
let total = 0
profile.samples.forEach((id, index) => {
  const time = sampleTimes[index]
  if (time < from || time > to) return
  const delta = profile.timeDeltas[index]
  total += delta
  const node = nodes.get(id)
  self.set(nameOf(node), (self.get(nameOf(node)) ?? 0) + delta)
  const seen = new Set()
  for (let current = id; current !== undefined; current = parentOf.get(current)) {
    const name = nameOf(nodes.get(current))
    if (seen.has(name)) continue
    seen.add(name)
    inclusive.set(name, (inclusive.get(name) ?? 0) + delta)
  }
})

const top = Number(values.top)
const rows = (map) =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, time]) => `| ${((100 * time) / total).toFixed(1)} % | \`${name}\` |`)
process.stdout.write(`${positionals[0]}: ${(total / 1e6).toFixed(1)} s of samples\n\n`)
process.stdout.write(`| self | function |\n|---|---|\n${rows(self).join('\n')}\n\n`)
process.stdout.write(`| with callees | function |\n|---|---|\n${rows(inclusive).join('\n')}\n`)
