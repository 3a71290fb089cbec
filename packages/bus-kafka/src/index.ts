export {
  KAFKA_SASL_MECHANISMS,
  type KafkaConnectionOptions,
  type KafkaSaslMechanism,
  kafkajsConnectionConfig,
} from './connection.js'
export { createKafkaBus, DEFAULT_PARTITIONS, type KafkaBusOptions } from './kafka-bus.js'
export type { KafkaLogLevel } from './kafkajs-logging.js'
export { DeadLetterHeaders } from './subscription.js'
