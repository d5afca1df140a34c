-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); json -> jsonb has different on-disk representations (pg_cast.dat castmethod 'i', I/O conversion): every row is converted, the table rewritten
-- verified: webhooks and webhooks_pkey relfilenodes changed (rewrite) under AccessExclusiveLock
-- given: CREATE TABLE webhooks (id bigint PRIMARY KEY, payload json, received_at timestamptz NOT NULL DEFAULT now());
ALTER TABLE webhooks ALTER COLUMN payload TYPE jsonb USING payload::jsonb;
