-- expect: unsafe add-column-not-null-without-default
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN NOT NULL without default: existing rows get NULL, the NOT NULL check fails once any partition has a row)
-- verified: PG15+16: ERROR: column "region" of relation "sessions_2025" contains null values (a row exists in the partition)
-- given: CREATE TABLE sessions (id uuid NOT NULL, started_at timestamptz NOT NULL, user_id bigint) PARTITION BY RANGE (started_at);
-- given: CREATE TABLE sessions_2025 PARTITION OF sessions FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: INSERT INTO sessions VALUES ('00000000-0000-0000-0000-000000000001', '2025-03-01', 1);
-- knex: table.string('region', 16).notNullable()
alter table "sessions" add column "region" varchar(16) not null;
