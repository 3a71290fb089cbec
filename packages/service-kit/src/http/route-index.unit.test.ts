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
