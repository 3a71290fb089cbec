import { describe, expect, it } from 'vitest'
import {
  type PaymentDocument,
  type PaymentReadModel,
  paymentMetadataValues,
  rememberingReadModel,
} from './read-model.js'

/** a read model in a Map, guarded by revision as every adapter is, counting its reads */
function mapReadModel() {
  const documents = new Map<string, PaymentDocument>()
  const counts = { gets: 0 }
  let failing = false
  const model: PaymentReadModel = {
    async get(paymentId) {
      counts.gets += 1
      return documents.get(paymentId) ?? null
    },
    async save(document) {
      if (failing) throw new Error('store down')
      const stored = documents.get(document.paymentId)
      if (stored !== undefined && stored.revision >= document.revision) return 'stale'
      documents.set(document.paymentId, document)
      return 'applied'
    },
    list: async () => [],
    listFunded: async () => [],
  }
  return { model, documents, counts, fail: (value: boolean) => (failing = value) }
}

const document = (paymentId: string, revision: number) =>
  ({
    paymentId,
    merchantId: 'm_1',
    revision,
    state: {},
    updatedAt: '2030-01-01T00:00:00.000Z',
  }) as never as PaymentDocument

describe('rememberingReadModel', () => {
  it("folds a payment's first event, and one that directly follows the document saved last, without reading the store", async () => {
    const store = mapReadModel()
    const model = rememberingReadModel(store.model)
    expect(await model.documentBefore('p1', 0)).toBeNull()
    await model.save(document('p1', 0))
    expect((await model.documentBefore('p1', 1))?.revision).toBe(0)
    await model.save(document('p1', 1))
    expect((await model.documentBefore('p1', 2))?.revision).toBe(1)
    expect(store.counts.gets).toBe(0)
  })

  it('reads the store for an event that does not directly follow it: a replay into an emptied read model', async () => {
    const store = mapReadModel()
    const model = rememberingReadModel(store.model)
    await model.save(document('p1', 0))
    await model.save(document('p1', 1))
    // a rebuild: the documents go, every event is published again from revision 0
    store.documents.clear()
    expect(await model.documentBefore('p1', 0)).toBeNull()
    expect(await model.save(document('p1', 0))).toBe('applied')
    expect((await model.documentBefore('p1', 1))?.revision).toBe(0)
    expect(store.counts.gets).toBe(0)
    // an event past a gap reads the store
    expect((await model.documentBefore('p1', 3))?.revision).toBe(0)
    expect(store.counts.gets).toBe(1)
  })

  it('forgets a payment whose save the store found stale or refused, and reads it again', async () => {
    const store = mapReadModel()
    const model = rememberingReadModel(store.model)
    await model.save(document('p1', 0))
    // another writer (the gateway's write-through) stored a newer revision
    store.documents.set('p1', document('p1', 2))
    expect(await model.save(document('p1', 1))).toBe('stale')
    expect((await model.documentBefore('p1', 2))?.revision).toBe(2)
    store.fail(true)
    await expect(model.save(document('p1', 3))).rejects.toThrow('store down')
    store.fail(false)
    expect((await model.documentBefore('p1', 3))?.revision).toBe(2)
    expect(store.counts.gets).toBe(2)
  })

  it('remembers at most maxEntries payments, the least recently used forgotten first', async () => {
    const store = mapReadModel()
    const model = rememberingReadModel(store.model, 2)
    for (const id of ['p1', 'p2', 'p3']) await model.save(document(id, 0))
    await model.documentBefore('p1', 1)
    expect(store.counts.gets).toBe(1)
    await model.documentBefore('p3', 1)
    expect(store.counts.gets).toBe(1)
  })
})

describe('paymentMetadataValues', () => {
  it('keeps every value whatever its key, once: a string as it is, a number or a boolean as its JSON text', () => {
    expect(
      paymentMetadataValues({
        orderId: '1042',
        order: 1042,
        total: 12.5,
        tiny: 1e-7,
        gift: false,
        none: null,
        empty: '',
        again: '1042',
        spaced: ' SO-1042 ',
      }),
    ).toEqual(['1042', '12.5', '1e-7', 'false', ' SO-1042 '])
  })

  it('keeps nothing of a payment without metadata', () => {
    expect(paymentMetadataValues({})).toEqual([])
    expect(paymentMetadataValues(undefined)).toEqual([])
  })
})
