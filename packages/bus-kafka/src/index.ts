export {
  KAFKA_SASL_MECHANISMS,
  type KafkaConnectionOptions,
  type KafkaSaslMechanism,
  kafkajsConnectionConfig,
} from './connection.js'
export {
  createKafkaBus,
  DEFAULT_CONSUMER_GROUP_TIMEOUTS,
  DEFAULT_PARTITIONS,
  type KafkaBusOptions,
  type KafkaConsumerGroupTimeouts,
  type KafkaRetryOptions,
} from './kafka-bus.js'
export type { KafkaLogLevel } from './kafkajs-logging.js'
export { DeadLetterHeaders } from './subscription.js'
