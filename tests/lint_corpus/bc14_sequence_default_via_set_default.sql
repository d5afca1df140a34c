-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DEFAULT: "Defaults only apply in subsequent INSERT or UPDATE commands; they do not cause rows already in the table to change"); a volatile nextval() default is only a problem in ADD COLUMN
-- verified: PG15: relfilenode of audit_log unchanged, seq_scan unchanged; existing rows keep seq_no NULL; the backfill UPDATE is bounded by WHERE
-- given: create table "audit_log" ("entry_uuid" uuid not null, "payload" jsonb, "created_at" timestamptz default CURRENT_TIMESTAMP, constraint "audit_log_pkey" primary key ("entry_uuid"));
alter table "audit_log" add column "seq_no" bigint;
create sequence "audit_log_seq_no_seq" owned by "audit_log"."seq_no";
alter table "audit_log" alter column "seq_no" set default nextval('audit_log_seq_no_seq'::regclass);
update "audit_log" set "seq_no" = nextval('audit_log_seq_no_seq') where "entry_uuid" in (select "entry_uuid" from "audit_log" where "seq_no" is null limit 5000);
