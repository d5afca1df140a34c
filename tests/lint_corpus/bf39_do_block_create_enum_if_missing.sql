-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-createtype.html (CREATE TYPE ... AS ENUM); https://www.postgresql.org/docs/current/sql-do.html; everything is created in this file
-- verified: PG15: succeeds on a fresh database and again on a second run of the DO block (type exists, branch skipped); no pre-existing relfilenode changed
-- given: CREATE TABLE shops (id bigint PRIMARY KEY, name text NOT NULL);
-- Alembic (postgresql.ENUM(create_type=False) + explicit guard)
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                    WHERE t.typname = 'refund_reason' AND n.nspname = 'public') THEN
        CREATE TYPE public.refund_reason AS ENUM ('damaged', 'late', 'not_as_described', 'other');
    END IF;
END
$$;

CREATE TABLE refunds (
    id bigserial NOT NULL,
    shop_id bigint NOT NULL,
    reason refund_reason NOT NULL DEFAULT 'other',
    amount_cents bigint NOT NULL,
    PRIMARY KEY (id),
    FOREIGN KEY (shop_id) REFERENCES shops (id)
);
CREATE INDEX ix_refunds_shop_id ON refunds (shop_id);
