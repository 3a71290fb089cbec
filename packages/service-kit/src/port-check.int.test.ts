// unavailablePort against real sockets: a port another program holds, a free one, and none.

import { createServer, type Server } from 'node:net'
import { describe, expect, it } from 'vitest'
import { unavailablePort } from './port-check.js'
import { freePort } from './testing/node-process.js'

describe('unavailablePort', () => {
  it('names the first port in use with the variable to set, and leaves the free ones free', async () => {
    const [free, taken] = [await freePort(), await freePort()]
    const occupant: Server = createServer()
    await new Promise<void>((resolve) => occupant.listen(taken, '127.0.0.1', resolve))
    try {
      expect(
        await unavailablePort([
          { variable: 'PORT', host: '127.0.0.1', port: free },
          { variable: 'ADMIN_PORT', host: '127.0.0.1', port: taken },
        ]),
      ).toBe(`port ${taken} (ADMIN_PORT) on 127.0.0.1 is in use (EADDRINUSE): set ADMIN_PORT to a free port`)
      // on every interface, the port held on loopback is taken too
      expect(await unavailablePort([{ variable: 'METRICS_PORT', host: '0.0.0.0', port: taken }])).toMatch(
        /^port \d+ \(METRICS_PORT\) on 0\.0\.0\.0 is in use \(EADDRINUSE\)/,
      )
    } finally {
      await new Promise<void>((resolve) => occupant.close(() => resolve()))
    }
    // released at once: the check itself holds nothing
    expect(await unavailablePort([{ variable: 'PORT', host: '127.0.0.1', port: free }])).toBeUndefined()
    expect(await unavailablePort([{ variable: 'PORT', host: '127.0.0.1', port: free }])).toBeUndefined()
    // 0: no listener of its own
    expect(await unavailablePort([{ variable: 'PORT', host: '127.0.0.1', port: 0 }])).toBeUndefined()
  })

  it('says when the host is not one of this machine', async () => {
    expect(await unavailablePort([{ variable: 'PORT', host: '192.0.2.1', port: await freePort() }])).toMatch(
      /^port \d+ \(PORT\) on 192\.0\.2\.1 is on an address that is not one of this machine \(EADDRNOTAVAIL\)/,
    )
  })
})
