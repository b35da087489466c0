export { jsonLine, jsonSink, logfmt, textLine } from "./format";
export {
  createLogger,
  errorText,
  LOG_LEVEL_RANK,
  LOG_LEVELS,
  type LogFields,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  type LogMethod,
  type LogRecord,
  type LogSink,
  silentLogger,
} from "./logger";
