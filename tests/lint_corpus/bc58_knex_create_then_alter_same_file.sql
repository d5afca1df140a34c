-- expect: safe
-- doc: every statement targets a table created earlier in the same file (empty, not yet used): no rule applies to it (rules text: "on a table that existed before the migration"); https://www.postgresql.org/docs/current/sql-altertable.html
-- verified: PG15: all statements succeeded; relfilenode and seq_scan of the pre-existing table "users" unchanged (only user_settings, created in the file, was rewritten by its type change)
-- given: create table "users" ("id" bigserial primary key, "email" varchar(255) not null);
create table "user_settings" ("id" bigserial primary key, "user_id" bigint, "theme" varchar(20));
alter table "user_settings" alter column "theme" type varchar(10);
alter table "user_settings" add column "locale" varchar(8) not null;
alter table "user_settings" alter column "user_id" set not null;
alter table "user_settings" add constraint "user_settings_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;
alter table "user_settings" add constraint "user_settings_user_id_unique" unique ("user_id");
create index "user_settings_locale_index" on "user_settings" ("locale");
