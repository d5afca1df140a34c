-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-truncate.html, https://www.postgresql.org/docs/current/sql-droptable.html (the table is created in this file: no running code uses it); INSERT ... SELECT reads the source under ACCESS SHARE only
-- verified: PG15: all statements succeed; during INSERT ... SELECT the only lock on user_profiles is AccessShareLock; user_profiles relfilenode unchanged
-- given: CREATE TABLE user_profiles (user_id bigint PRIMARY KEY, locale text, timezone text, bio text);
CREATE TABLE profile_locale_backfill (user_id bigint PRIMARY KEY, locale text NOT NULL);

INSERT INTO profile_locale_backfill (user_id, locale)
SELECT user_id, lower(locale) FROM user_profiles WHERE locale IS NOT NULL AND locale <> lower(locale);

UPDATE user_profiles AS u SET locale = b.locale
  FROM profile_locale_backfill AS b
 WHERE u.user_id = b.user_id;

TRUNCATE TABLE profile_locale_backfill;
DROP TABLE IF EXISTS profile_locale_backfill;
