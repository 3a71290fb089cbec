import { describe, expect, it } from 'vitest'
import { escapeKey, escapeKeys, unescapeKey, unescapeKeys } from './document-keys.js'

describe('escapeKey', () => {
  it.each([
    ['$where', '%24where'],
    ['a.b', 'a%2Eb'],
    ['50%', '50%25'],
    ['%24where', '%2524where'],
    ['a$b', 'a$b'],
    ['plain', 'plain'],
  ])('%s is stored as %s and read back exactly', (key, stored) => {
    expect(escapeKey(key)).toBe(stored)
    expect(stored.startsWith('$')).toBe(false)
    expect(stored.includes('.')).toBe(false)
    expect(unescapeKey(stored)).toBe(key)
  })
})

describe('escapeKeys', () => {
  it('escapes keys at every depth, leaves values alone, and unescapeKeys restores the original', () => {
    const original = {
      metadata: { $where: 'x.y', 'a.b': 1, '%2E': true, nested: [{ '$in.x': null }] },
      at: '2026-11-21T00:00:00.000Z',
    }
    const stored = escapeKeys(original)
    expect(JSON.stringify(stored)).not.toMatch(/"\$|\.[^"]*":/)
    expect(stored).toEqual({
      metadata: { '%24where': 'x.y', 'a%2Eb': 1, '%252E': true, nested: [{ '%24in%2Ex': null }] },
      at: '2026-11-21T00:00:00.000Z',
    })
    expect(unescapeKeys(stored)).toEqual(original)
  })
})
