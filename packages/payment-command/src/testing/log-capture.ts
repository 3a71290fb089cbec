import type { DestinationStream } from '@chainpay/platform'

export interface LogCapture extends DestinationStream {
  lines: Array<Record<string, unknown> & { level: string; msg: string }>
}

/** a pino destination that keeps every line, parsed */
export function captureLogs(): LogCapture {
  const lines: LogCapture['lines'] = []
  return {
    lines,
    write(line: string) {
      lines.push(JSON.parse(line))
    },
  }
}
