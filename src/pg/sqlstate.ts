/**
 * canopy error codes as PostgreSQL SQLSTATEs (Appendix A of the PostgreSQL docs), so that
 * clients that branch on SQLSTATE (syntax error, undefined column, query cancelled,
 * insufficient resources) do the right thing.
 */
import type { ErrorCode } from '../merge/index.ts';

const SQLSTATE: Readonly<Record<ErrorCode, string>> = {
  CANOPY_ERR_BAD_QUERY: '42601', // syntax_error
  CANOPY_ERR_UNKNOWN_TABLE: '42P01', // undefined_table
  CANOPY_ERR_UNKNOWN_COLUMN: '42703', // undefined_column
  CANOPY_ERR_UNSUPPORTED: '0A000', // feature_not_supported
  CANOPY_ERR_TYPE: '42804', // datatype_mismatch
  CANOPY_ERR_OUT_OF_RANGE: '22003', // numeric_value_out_of_range
  CANOPY_ERR_BAD_REQUEST: '22023', // invalid_parameter_value
  CANOPY_ERR_LIMIT: '54000', // program_limit_exceeded
  CANOPY_ERR_UNAUTHORIZED: '28P01', // invalid_password
  CANOPY_ERR_BODY_TOO_LARGE: '54000',
  CANOPY_ERR_NOT_ACCEPTABLE: '0A000',
  CANOPY_ERR_NOT_FOUND: '0A000',
  CANOPY_ERR_METHOD_NOT_ALLOWED: '0A000',
  CANOPY_ERR_NO_COVERAGE: '58000', // system_error: no shard could answer
  CANOPY_ERR_OVERLOADED: '53000', // insufficient_resources
  CANOPY_ERR_NOT_READY: '57P03', // cannot_connect_now
  CANOPY_ERR_CHILD_HTTP: '58000',
  CANOPY_ERR_CHILD_UNREACHABLE: '58000',
  CANOPY_ERR_CHILD_GARBLED: '58000',
  CANOPY_ERR_DEADLINE: '57014', // query_canceled (statement timeout)
  CANOPY_ERR_CANCELLED: '57014', // query_canceled
  CANOPY_ERR_DATA: '58030', // io_error
  CANOPY_ERR_PORT_IN_USE: '58000', // system_error (a server's port; not sent to clients)
  CANOPY_ERR_INTERNAL: 'XX000', // internal_error
};

/** The SQLSTATE of a canopy error code (XX000 for a code this table does not know). */
export function sqlstateOf(code: string): string {
  return (SQLSTATE as Record<string, string>)[code] ?? 'XX000';
}
