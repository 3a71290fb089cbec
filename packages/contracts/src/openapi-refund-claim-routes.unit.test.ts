// The refund claim page's routes in the merchant API's document (docs/api.md, "The refund claim
// page"): public, at the origin's root, under their own tag, every $ref resolved.

import { describe, expect, it } from 'vitest'
import { buildOpenApiDocument } from './openapi.js'

type Json = Record<string, unknown>

const json = JSON.parse(
  JSON.stringify(buildOpenApiDocument({ serverUrl: 'https://pay.example.com/api/merchant/v1' })),
) as Json & { paths: Record<string, Json>; tags: Array<{ name: string }>; components: Json }

describe('the refund claim routes in openapi.json', () => {
  const operations = Object.entries(json.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => !['parameters', 'servers'].includes(method))
      .filter(([, operation]) => ((operation as Json).tags as string[]).includes('refund-claim'))
      .map(([method, operation]) => ({
        route: `${method.toUpperCase()} ${path}`,
        item,
        operation: operation as Json,
      })),
  )

  it('are the page, its logo and its two forms, public, at the origin root, tagged refund-claim', () => {
    expect(operations.map(({ route }) => route)).toEqual([
      'GET /refund/{token}',
      'GET /refund/{token}/logo',
      'POST /refund/{token}/address',
      'POST /refund/{token}/confirm',
    ])
    for (const { route, item, operation } of operations) {
      expect(operation.security, route).toEqual([])
      expect(item.servers, route).toEqual([expect.objectContaining({ url: '/' })])
    }
    expect(json.tags.map((tag) => tag.name)).toContain('refund-claim')
  })

  it('refer only to components the document has', () => {
    const refs = JSON.stringify(operations).match(/#\/components\/[^"]+/g) ?? []
    expect(refs.length).toBeGreaterThan(0)
    for (const pointer of refs) {
      const [, , kind, name] = pointer.split('/')
      expect((json.components[kind as string] as Json)[name as string], pointer).toBeDefined()
    }
  })
})
