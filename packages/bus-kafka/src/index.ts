export { createKafkaBus, DEFAULT_PARTITIONS, type KafkaBusOptions } from './kafka-bus.js'
export type { KafkaLogLevel } from './kafkajs-logging.js'
export { DeadLetterHeaders } from './subscription.js'
