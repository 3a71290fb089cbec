import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PaymentReadModel, PaymentSearch } from '../read-model.js'
import { samplePaymentDocument } from './read-model-contract.js'

/** What every PaymentSearch adapter must do over the read model it searches; fresh, empty per test. */
export function describePaymentSearchContract(
  adapterName: string,
  setup: () => Promise<{ readModel: PaymentReadModel; search: PaymentSearch; teardown(): Promise<void> }>,
): void {
  describe(`PaymentSearch contract: ${adapterName}`, () => {
    let readModel: PaymentReadModel
    let search: PaymentSearch
    let teardown: () => Promise<void> = async () => {}

    beforeEach(async () => {
      const fixture = await setup()
      readModel = fixture.readModel
      search = fixture.search
      teardown = () => fixture.teardown()
    })
    afterEach(() => teardown())

    const payment = (
      paymentId: string,
      merchantId: string,
      address: string,
      txHash: string | null,
      createdAt: string,
    ) => {
      const document = samplePaymentDocument(paymentId, 3)
      const state = {
        ...document.state,
        created: { ...document.state.created, paymentId, merchantId, address, createdAt },
        transfers:
          txHash === null ? [] : document.state.transfers.map((transfer) => ({ ...transfer, txHash })),
        txHash,
      }
      return { ...document, merchantId, state }
    }

    it("finds a merchant's payments by receiving address or tx hash, newest first, and no other merchant's", async () => {
      const first = payment('pay_1', 'mer_1', 'TAddressOne', 'aa'.repeat(32), '2030-01-01T00:00:00.000Z')
      const second = payment('pay_2', 'mer_1', 'TAddressOne', null, '2030-01-02T00:00:00.000Z')
      const other = payment('pay_3', 'mer_2', 'TAddressOne', 'aa'.repeat(32), '2030-01-03T00:00:00.000Z')
      for (const document of [first, second, other]) await readModel.save(document)

      const ids = async (merchantId: string, reference: string, limit = 10) =>
        (await search.findByReference(merchantId, reference, limit)).map((found) => found.paymentId)
      expect(await ids('mer_1', 'TAddressOne')).toEqual(['pay_2', 'pay_1'])
      expect(await ids('mer_1', 'TAddressOne', 1)).toEqual(['pay_2'])
      expect(await ids('mer_1', 'aa'.repeat(32))).toEqual(['pay_1'])
      expect(await ids('mer_2', 'aa'.repeat(32))).toEqual(['pay_3'])
      expect(await ids('mer_1', 'bb'.repeat(32))).toEqual([])
      expect((await search.findByReference('mer_1', 'aa'.repeat(32), 10))[0]).toEqual(
        await readModel.get('pay_1'),
      )
    })
  })
}
