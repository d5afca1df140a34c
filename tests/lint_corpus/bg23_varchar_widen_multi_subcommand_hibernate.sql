-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: binary coercible; varchar_support: larger length is a no-op); SET DEFAULT and DROP NOT NULL are catalog-only; all subcommands in one ALTER
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): app_user AccessExclusiveLock, app_user ShareLock, app_user_username_key AccessExclusiveLock
-- given: CREATE TABLE app_user (id bigint PRIMARY KEY, username varchar(30) NOT NULL, locale varchar(5));
-- given: CREATE UNIQUE INDEX CONCURRENTLY app_user_username_key ON app_user (username);
alter table if exists app_user
    alter column username set data type varchar(150),
    alter column locale set data type varchar(35),
    alter column locale set default 'en-US',
    alter column locale drop not null;
