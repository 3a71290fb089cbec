import { testKafkaBrokers, uniqueName } from '@chainpay/local-servers/testing'
import { describeBusContract } from '@chainpay/ports/testing'
import { createKafkaBus } from './kafka-bus.js'
import { capturedLogger, deleteKafkaNames } from './testing/kafka.js'

// Each test's topics and groups carry a prefix of their own, deleted from the broker afterwards.
describeBusContract('Kafka', async () => {
  const namePrefix = `${uniqueName('bus-contract')}.`
  const brokers = testKafkaBrokers()
  const bus = createKafkaBus({
    brokers,
    clientId: 'bus-kafka-contract',
    logger: capturedLogger().logger,
    namePrefix,
    partitions: 3,
    // each test ends with a stop, which waits for the idle fetch in flight: keep that short
    fetchWaitMs: 100,
  })
  return {
    bus,
    async teardown() {
      await bus.close()
      await deleteKafkaNames(brokers, namePrefix)
    },
  }
})
