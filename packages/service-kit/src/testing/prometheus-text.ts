// Reading what a scrape of /metrics answered, in tests: the value of one series of the Prometheus
// text format.

export interface PrometheusSample {
  name: string
  labels: Record<string, string>
  value: number
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** every sample of the exposition, comments and blank lines left out */
export function parsePrometheusText(text: string): PrometheusSample[] {
  const samples: PrometheusSample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = SAMPLE_LINE.exec(line)
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`)
    const [, name = '', labelText = '', value = ''] = match
    const labels: Record<string, string> = {}
    for (const [, label = '', escaped = ''] of labelText.matchAll(LABEL)) {
      labels[label] = escaped.replace(/\\(.)/g, (_all, char: string) => (char === 'n' ? '\n' : char))
    }
    samples.push({ name, labels, value: Number(value) })
  }
  return samples
}

/**
 * The value of the one series named `name` whose labels include `labels`; undefined when there is
 * none. Several matching is the test's mistake: it throws.
 */
export function prometheusSample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const matching = parsePrometheusText(text).filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
  )
  if (matching.length > 1) {
    throw new Error(`${matching.length} series of ${name} match ${JSON.stringify(labels)}; name more labels`)
  }
  return matching[0]?.value
}
