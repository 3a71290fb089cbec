// Reads a secret from the terminal without echoing it (or, piped, the whole of stdin).

/** the line typed after `question`, not shown; from a pipe, everything stdin carries */
export async function promptHidden(question: string): Promise<string> {
  const { stdin, stderr } = process
  if (!stdin.isTTY) {
    const chunks: Buffer[] = []
    for await (const chunk of stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }
  stderr.write(question)
  stdin.setRawMode(true)
  stdin.resume()
  return new Promise((resolve, reject) => {
    let typed = ''
    const onData = (data: Buffer) => {
      for (const char of data.toString('utf8')) {
        if (char === '\r' || char === '\n') {
          finish()
          resolve(typed)
          return
        }
        if (char === '\u0003') {
          finish()
          reject(new Error('interrupted'))
          return
        }
        typed = char === '\u007f' ? typed.slice(0, -1) : typed + char
      }
    }
    const finish = () => {
      stdin.off('data', onData)
      stdin.setRawMode(false)
      stdin.pause()
      stderr.write('\n')
    }
    stdin.on('data', onData)
  })
}
