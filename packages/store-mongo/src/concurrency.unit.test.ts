import { describe, expect, it } from 'vitest'
import { createPerKeyQueue } from './concurrency.js'

/** a promise settled from outside, to hold a piece of work at a known point */
function gate() {
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

describe('createPerKeyQueue', () => {
  it('starts the work of a key only after the earlier work of that key has settled', async () => {
    const queue = createPerKeyQueue()
    const order: string[] = []
    const first = gate()
    const running = [
      queue.run('pay_1', async () => {
        order.push('first started')
        await first.opened
        order.push('first done')
        return 1
      }),
      queue.run('pay_1', async () => {
        order.push('second started')
        return 2
      }),
    ]
    await Promise.resolve()
    expect(order).toEqual(['first started'])
    first.open()
    expect(await Promise.all(running)).toEqual([1, 2])
    expect(order).toEqual(['first started', 'first done', 'second started'])
  })

  it('lets different keys run side by side', async () => {
    const queue = createPerKeyQueue()
    const held = gate()
    const slow = queue.run('pay_1', async () => {
      await held.opened
      return 'slow'
    })
    expect(await queue.run('pay_2', async () => 'other key')).toBe('other key')
    held.open()
    expect(await slow).toBe('slow')
  })

  it("hands a rejection to its caller and still runs the key's next work", async () => {
    const queue = createPerKeyQueue()
    const failing = queue.run('pay_1', async () => {
      throw new Error('write failed')
    })
    const next = queue.run('pay_1', async () => 'next')
    await expect(failing).rejects.toThrow('write failed')
    expect(await next).toBe('next')
  })
})
