import { describe, expect, it } from 'vitest'
import { createRouteIndex } from './route-index.js'

describe('createRouteIndex', () => {
  const index = createRouteIndex()
  index.add('/api/merchant/v1/payments', 'POST')
  index.add('/api/merchant/v1/payments/:paymentId', ['GET', 'HEAD'])
  index.add('/api/merchant/v1/payments/:paymentId/cancel', 'POST')
  index.add('/dev/chains/*', ['DELETE', 'GET', 'POST'])
  index.add('/openapi.json', 'GET')
  index.add('/openapi.json', 'HEAD')

  it('gives the pattern and the methods served on a path, whatever its parameters, HEAD last', () => {
    expect(index.match('/api/merchant/v1/payments')).toEqual({
      pattern: '/api/merchant/v1/payments',
      methods: ['POST'],
    })
    expect(index.match('/api/merchant/v1/payments/0b6c-anything')).toEqual({
      pattern: '/api/merchant/v1/payments/:paymentId',
      methods: ['GET', 'HEAD'],
    })
    expect(index.match('/api/merchant/v1/payments/x/cancel')?.methods).toEqual(['POST'])
    expect(index.match('/dev/chains/TRON/transfers')?.methods).toEqual(['GET', 'POST', 'DELETE', 'HEAD'])
  })

  it('gives nothing for a path no route serves, and takes dots literally', () => {
    expect(index.match('/api/merchant/v1/payments/a/b')).toBeNull()
    expect(index.match('/api/merchant/v1')).toBeNull()
    expect(index.match('/openapi.json')?.methods).toEqual(['GET', 'HEAD'])
    expect(index.match('/openapiXjson')).toBeNull()
  })
})

describe('censor', () => {
  const index = createRouteIndex()
  index.add('/pay/:token', 'GET')
  index.add('/pay/:token/status', 'GET')
  index.add('/pay/assets/checkout.js', 'GET')
  index.add('/payments/:paymentId', 'GET')
  const censor = (path: string) => index.censor(path, (name) => name === 'token', '[redacted]')

  it("replaces a secret parameter's segment, on served paths and on paths that only begin like one", () => {
    expect(censor('/pay/abcDEF_-123')).toBe('/pay/[redacted]')
    expect(censor('/pay/abcDEF_-123/status')).toBe('/pay/[redacted]/status')
    expect(censor('/pay/abcDEF_-123/status/')).toBe('/pay/[redacted]/status/')
    expect(censor('/pay/abcDEF_-123/nothing/here')).toBe('/pay/[redacted]/nothing/here')
  })

  it('leaves other parameters and other paths as they are', () => {
    expect(censor('/payments/0b6c')).toBe('/payments/0b6c')
    expect(censor('/pay')).toBe('/pay')
    expect(censor('/pay/')).toBe('/pay/[redacted]')
    expect(censor('/other/abc')).toBe('/other/abc')
    // a static route wins over /pay/:token/status in the router, and in the log
    expect(censor('/pay/assets/checkout.js')).toBe('/pay/assets/checkout.js')
  })
})
