-- expect: unsafe add-column-rewrites
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: adding a column whose default is volatile, as a serial's nextval() is, rewrites the table); Knex table.bigIncrements('seq_no', { primaryKey: false }) emits bigserial
-- verified: PG15: relfilenode of audit_log changed (rewrite), each existing row got its own value
-- given: create table "audit_log" ("entry_uuid" uuid not null, "payload" jsonb, "created_at" timestamptz default CURRENT_TIMESTAMP, constraint "audit_log_pkey" primary key ("entry_uuid"));
alter table "audit_log" add column "seq_no" bigserial;
